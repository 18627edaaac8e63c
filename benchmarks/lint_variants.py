"""Lint recall and noise on blind-written variants: benchmarks/lint_variants/.

Each case is a small multi-file project (2-4 files) written by a helper who never saw the rules' code nor ran
the linter, in the style of one kind of real project (a Trainer class, Lightning, a Hugging Face Trainer
subclass, an accelerate loop, a callback engine, a registry, a notebook exported as a script), with one bug of
a known class put where such projects put it, and its twin `ok/` with only that bug fixed. They are not real
code: the real corpora (lint_corpus*) say how the rules do on shipped bugs; these say whether a rule knows the
bug or one spelling of it, on spellings nobody fitted it to.

    python benchmarks/lint_variants.py [--show misses]

Rounds: round 1 (V1, V2) was measured, then the rules were widened on its misses; round 2 (V3, V4), written
meanwhile by two other helpers and kept from the rule writers, was measured before and after that widening:
whether fixing one spelling of a bug catches the next one. `--round N` scores one round.

Per class: right class (a finding of the class anywhere in bug/), at the line (in the labelled file, within
+-1 line), quiet twin (no finding of the class in ok/); and the warning-or-error findings of any rule on the
twins, each listed.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import yaml

from mldebug_mcp.services.lint import lint

ROOT = Path(__file__).resolve().parent / "lint_variants"
LOUD = {"warning", "error"}


def score(case: dict) -> dict:
    folder = ROOT / "cases" / case["id"]
    found = lint([str(folder / "bug")]).findings  # the folder is walked, as a user lints a project
    twin = lint([str(folder / "ok")]).findings
    labelled = (folder / case["file"]).resolve()
    mine = [f for f in found if f.code == case["class"]]
    return {
        "case": case,
        "right_class": bool(mine),
        "at_line": any(Path(f.path).resolve() == labelled and abs(f.line - case["line"]) <= 1 for f in mine),
        "quiet_twin": not any(f.code == case["class"] for f in twin),
        "loud_on_twin": [f for f in twin if f.severity in LOUD],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", choices=["misses"], action="append", default=[])
    parser.add_argument("--round", type=int, help="only the cases written in this round")
    args = parser.parse_args()
    cases = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))
    if args.round is not None:
        cases = [c for c in cases if c["round"] == args.round]
    results = [score(c) for c in cases]
    by_class: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_class[r["case"]["class"]].append(r)
    print(f"{'class':<8} {'cases':>5} {'right class':>11} {'at line':>8} {'quiet twin':>10}")
    for cls in sorted(by_class):
        rs = by_class[cls]
        print(f"{cls:<8} {len(rs):>5} {sum(r['right_class'] for r in rs):>11} {sum(r['at_line'] for r in rs):>8} "
              f"{sum(r['quiet_twin'] for r in rs):>10}")
    n = len(results)
    hit, line = sum(r["right_class"] for r in results), sum(r["at_line"] for r in results)
    quiet = sum(r["quiet_twin"] for r in results)
    loud = [(r["case"]["id"], f) for r in results for f in r["loud_on_twin"]]
    print(f"{'all':<8} {n:>5} {hit:>11} {line:>8} {quiet:>10}")
    print(f"right class {100 * hit / n:.1f}%, at the line {100 * line / n:.1f}%, quiet twins {100 * quiet / n:.1f}%; "
          f"{len(loud)} warning-or-error findings on the {n} fixed twins")
    for case_id, f in loud:
        print(f"  {case_id}/ok: {Path(f.path).name}:{f.line} {f.code} {f.severity} {f.name}")
    for number in sorted({r["case"]["round"] for r in results}):
        mine = [r for r in results if r["case"]["round"] == number]
        print(f"round {number}: right class {sum(r['right_class'] for r in mine)}/{len(mine)}, "
              f"at the line {sum(r['at_line'] for r in mine)}/{len(mine)}")
    if "misses" in args.show:
        print("\nmisses (no right-class finding at the labelled line):")
        for r in results:
            if not r["at_line"]:
                c = r["case"]
                state = "found elsewhere" if r["right_class"] else "not found"
                print(f"  {c['id']} [{c['class']}] {state}; {c['file']}:{c['line']} ({c['style']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
