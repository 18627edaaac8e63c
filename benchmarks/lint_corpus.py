"""Lint recall and noise on real code: the development corpus of benchmarks/lint_corpus/.

Each case (one YAML in benchmarks/lint_corpus/cases/, format in its README) is a buggy file set from a
public PyTorch project, confirmed by a fix commit or a maintainer's reply, or a clean training script
read by hand. Only the manifests are committed: the files are other projects' code, written into
files/<id>/ (ignored by git) by benchmarks/lint_corpus_extract.py; cases not extracted are skipped
and counted. Each case's files are linted together, in one run, through the Python API.

Measured:
  - per class (the rule code of the bug, or NEW:<slug> for a bug no rule covers yet): the buggy cases,
    right-class recall (a finding whose code is the class, or one of the case's `rules:`, anywhere in
    the case's files) and recall at the labelled line (such a finding in the first path, within +-1
    line of `line`);
  - on clean cases: warning-or-error findings per 10 clean files, each one listed.

    python benchmarks/lint_corpus.py [--show misses] [--corpus DIR]

Targets: right-class recall >= 85%, recall at the labelled line >= 70%, at most 1 warning-or-error
finding per 10 clean files. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from mldebug_mcp.services.lint import lint

CORPUS = Path(__file__).resolve().parent / "lint_corpus"
RECALL_TARGET = 0.85
LINE_TARGET = 0.70
NOISE_TARGET = 1.0  # warning-or-error findings per 10 clean files
LOUD = {"warning", "error"}


@dataclass
class Result:
    case: dict
    files: list[Path]
    findings: list = field(default_factory=list)
    right_class: bool = False
    at_line: bool = False


def load_cases(corpus: Path) -> list[dict]:
    cases = []
    for path in sorted((corpus / "cases").glob("*.yaml")):
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        case["_file"] = path.name
        cases.append(case)
    return cases


def accepted_codes(case: dict) -> set[str]:
    """The codes that count as the right class: the class itself when it is a rule code, plus `rules:`."""
    codes = set(case.get("rules") or [])
    if not str(case["class"]).startswith("NEW:"):
        codes.add(case["class"])
    return codes


def case_folder(case: dict, corpus: Path) -> Path:
    return corpus / "files" / case["id"]


def extracted(case: dict, corpus: Path) -> bool:
    return all((case_folder(case, corpus) / p).is_file() for p in case["paths"])


def score(case: dict, corpus: Path) -> Result:
    files = [case_folder(case, corpus) / p for p in case["paths"]]
    report = lint([str(p) for p in files])
    result = Result(case, files, list(report.findings))
    if case["kind"] != "buggy":
        return result
    codes = accepted_codes(case)
    first = files[0].resolve()
    for finding in result.findings:
        if finding.code not in codes:
            continue
        result.right_class = True
        if Path(finding.path).resolve() == first and abs(finding.line - int(case["line"])) <= 1:
            result.at_line = True
    return result


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--show", choices=["misses"], action="append", default=[],
                        help="misses: list the buggy cases without a right-class finding at the labelled line")
    args = parser.parse_args()

    cases = load_cases(args.corpus)
    skipped = [c for c in cases if not extracted(c, args.corpus)]
    runnable = [c for c in cases if extracted(c, args.corpus)]
    results = [score(c, args.corpus) for c in runnable]
    buggy = [r for r in results if r.case["kind"] == "buggy"]
    clean = [r for r in results if r.case["kind"] == "clean"]
    print(f"cases: {len(cases)} ({sum(c['kind'] == 'buggy' for c in cases)} buggy, "
          f"{sum(c['kind'] == 'clean' for c in cases)} clean); skipped, files not extracted: {len(skipped)} "
          f"({sum(c['kind'] == 'buggy' for c in skipped)} buggy, {sum(c['kind'] == 'clean' for c in skipped)} clean)")

    by_class: dict[str, list[Result]] = defaultdict(list)
    for r in buggy:
        by_class[str(r.case["class"])].append(r)
    print()
    print(f"{'class':<40} {'cases':>5} {'right class':>12} {'at line':>12}")
    for cls in sorted(by_class, key=lambda c: (c.startswith("NEW:"), c)):
        rs = by_class[cls]
        hit = sum(r.right_class for r in rs)
        line = sum(r.at_line for r in rs)
        print(f"{cls:<40} {len(rs):>5} {hit:>4} {pct(hit, len(rs))} {line:>4} {pct(line, len(rs))}")
    hit = sum(r.right_class for r in buggy)
    line = sum(r.at_line for r in buggy)
    print(f"{'all':<40} {len(buggy):>5} {hit:>4} {pct(hit, len(buggy))} {line:>4} {pct(line, len(buggy))}")

    clean_files = sum(len(r.files) for r in clean)
    loud = [(r, f) for r in clean for f in r.findings if f.severity in LOUD]
    per10 = 10 * len(loud) / clean_files if clean_files else 0.0
    print()
    print(f"clean: {len(clean)} cases, {clean_files} files, {len(loud)} warning-or-error findings "
          f"= {per10:.2f} per 10 files (target <= {NOISE_TARGET:g})")
    base = args.corpus.resolve()
    for r, f in loud:
        try:
            where = Path(f.path).resolve().relative_to(case_folder(r.case, base))
        except ValueError:
            where = Path(f.path)
        print(f"  {r.case['id']}: {where}:{f.line} {f.code} {f.severity} {f.name}")

    if "misses" in args.show:
        print()
        print("misses (no right-class finding at the labelled line):")
        for r in buggy:
            if r.at_line:
                continue
            state = "found elsewhere" if r.right_class else "not found"
            print(f"  {r.case['id']} [{r.case['class']}] {state}; {r.case['repo']} "
                  f"{r.case['paths'][0]}:{r.case['line']}")
            print(f"      {r.case['label']}")

    recall = hit / len(buggy) if buggy else 0.0
    at_line = line / len(buggy) if buggy else 0.0
    ok = recall >= RECALL_TARGET and at_line >= LINE_TARGET and per10 <= NOISE_TARGET
    print()
    print(f"targets: right-class recall {100 * recall:.1f}% (>= {100 * RECALL_TARGET:.0f}%), "
          f"at the labelled line {100 * at_line:.1f}% (>= {100 * LINE_TARGET:.0f}%), "
          f"{per10:.2f} loud findings per 10 clean files (<= {NOISE_TARGET:g}): {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
