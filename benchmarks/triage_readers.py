"""The readers' benchmark for triage: packets for language-model readers under neutral ids, and their scoring.

Issue 19 asks three readers side by side on the held-out forum sets (collected_d `heldout`, collected_e
`fresh`): the tool alone (triage_forum_cases.py prints it), an agent given triage's output together with
the cause catalogue (`include_catalogue`), and an expert reading the catalogue alone. The two language-model
readers are helpers who see neutral ids only (case-NNN for threads, K-NNN for causes), because the real
cause ids often name the cause, and who never see a label, a confirmed cause or the thread.

    python benchmarks/triage_readers.py packets OUT PRIVATE [--sets f]  # the packets to OUT, the id map to PRIVATE
    python benchmarks/triage_readers.py score PRIVATE ANSWERS           # answers -> triage_cases/readers/*.yaml

`--sets` picks the held-out sets (default: all). Scoring adds the answers of the packets' sets to what
readers/*.yaml already holds for the other sets, so a set collected later (f, 2026-11-27) is read by fresh
helpers without re-reading d and e.

Packets (OUT): `catalogue.md` (every cause, neutral ids), `expert_<set>.md` (each case's description),
`agent_<set>.md` (each description with triage's compact output, top ten, no quotes, neutral ids; the
catalogue is the same for every case, so it is given once in catalogue.md rather than repeated per case).
Answers (ANSWERS): `<reader>_<set>.yaml` mapping case-NNN to five K-NNN ids, most likely first.
Scoring writes `triage_cases/readers/<reader>.yaml` in real ids, which triage_forum_cases.py prints
beside triage's own rates. Only aggregate rates are printed here; no case is shown.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import yaml

from mldebug_mcp.render.triage import triage_text
from mldebug_mcp.services.triage import catalogue_index, triage
from mldebug_mcp.triage.catalogue import load_catalogue

CASES = Path(__file__).parent / "triage_cases"
SETS = {"d": "collected_d.yaml", "e": "collected_e.yaml", "f": "collected_f.yaml", "g": "collected_g.yaml",
        "h": "collected_h.yaml", "i": "collected_i.yaml", "j": "collected_j.yaml",
        "k": "collected_k.yaml"}
READERS = ("agent", "expert")
SEED = 20261127
AGENT_LIMIT = 10


def neutral_cause_ids(cause_ids: list[str]) -> dict[str, str]:
    shuffled = sorted(cause_ids)
    random.Random(SEED).shuffle(shuffled)
    return {cause: f"K-{n:03d}" for n, cause in enumerate(shuffled, 1)}


def neutralise(text: str, mapping: dict[str, str]) -> str:
    # Longest ids first, and whole ids only: "overfitting" must not eat part of "reward-model-overfitting".
    pattern = re.compile(r"(?<![a-z0-9-])(" + "|".join(map(re.escape, sorted(mapping, key=len, reverse=True)))
                         + r")(?![a-z0-9-])")
    return pattern.sub(lambda m: mapping[m.group(1)], text)


def load_set(name: str) -> list[dict]:
    return yaml.safe_load((CASES / SETS[name]).read_text(encoding="utf-8"))


def write_packets(out: Path, private: Path, sets: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    causes = neutral_cause_ids(list(load_catalogue().causes))
    (out / "catalogue.md").write_text(neutralise(catalogue_index(), causes), encoding="utf-8")
    case_ids: dict[str, dict[str, str]] = {}
    paraphrased = {case.url.rstrip("/") for case in load_catalogue().cases}
    for name in sets:
        cases = load_set(name)
        # Triage would be matched against our own paraphrases of these threads: packets made now would flatter it.
        leaked = [c["id"] for c in cases if c["url"].rstrip("/") in paraphrased]
        if leaked:
            raise SystemExit(f"set {name}: {len(leaked)} of its threads are paraphrased in the case base; its packets "
                             "must be made before the set joins the case base (pick sets with --sets)")
        random.Random(f"{SEED}-{name}").shuffle(cases)
        case_ids[name] = {f"case-{n:03d}": case["id"] for n, case in enumerate(cases, 1)}
        expert, agent = [], []
        for neutral, case in zip(case_ids[name], cases):
            told = f"## {neutral}\n\n{case['symptom'].strip()}\n"
            expert.append(told)
            result = triage(case["symptom"], limit=AGENT_LIMIT, detail="compact")
            agent.append(told + "\n### triage output\n\n" + neutralise(triage_text(result, quotes=False), causes) + "\n")
        (out / f"expert_{name}.md").write_text("\n".join(expert), encoding="utf-8")
        (out / f"agent_{name}.md").write_text("\n".join(agent), encoding="utf-8")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip()
    mapping = {"commit": commit, "causes": causes, "cases": case_ids, "catalogue_size": len(causes)}
    (private / "mapping.json").write_text(json.dumps(mapping, indent=1), encoding="utf-8")
    print(f"packets for {sum(len(v) for v in case_ids.values())} cases, {len(causes)} causes, at {commit}: {out}")


def score(private: Path, answers: Path) -> None:
    mapping = json.loads((private / "mapping.json").read_text(encoding="utf-8"))
    real = {neutral: cause for cause, neutral in mapping["causes"].items()}
    target = CASES / "readers"
    target.mkdir(exist_ok=True)
    for reader in READERS:
        existing = target / f"{reader}.yaml"
        # the answers already there for other sets are kept (an empty file loads as None)
        ranked: dict[str, list[str]] = (yaml.safe_load(existing.read_text(encoding="utf-8")) if existing.exists()
                                        else None) or {}
        unknown = 0
        for name in mapping["cases"]:
            path = answers / f"{reader}_{name}.yaml"
            if not path.exists():
                print(f"{reader}: no answers for set {name} ({path})", file=sys.stderr)
                continue
            for neutral_case, picks in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
                case = mapping["cases"][name][neutral_case]
                ranked[case] = [real[p] for p in picks if p in real][:5]
                unknown += sum(1 for p in picks if p not in real)
        header = (f"# {reader} reader, issue 19's readers' benchmark: five causes per held-out case, most likely first,\n"
                  f"# chosen by an LLM helper under neutral ids from {'the catalogue alone' if reader == 'expert' else 'triage top ten plus the catalogue'}\n"
                  "# (made by benchmarks/triage_readers.py; sets d and e: catalogue of 121 causes at 75f105c;\n"
                  f"# last added: set(s) {', '.join(mapping['cases'])}, catalogue of {mapping['catalogue_size']} causes at {mapping['commit']}).\n")
        (target / f"{reader}.yaml").write_text(header + yaml.safe_dump(ranked, sort_keys=True), encoding="utf-8")
        print(f"{reader}: {len(ranked)} cases written, {unknown} unknown ids dropped")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("packets")
    make.add_argument("out", type=Path)
    make.add_argument("private", type=Path)
    make.add_argument("--sets", nargs="+", choices=list(SETS), default=list(SETS))
    scoring = sub.add_parser("score")
    scoring.add_argument("private", type=Path)
    scoring.add_argument("answers", type=Path)
    args = parser.parse_args()
    if args.command == "packets":
        write_packets(args.out, args.private, args.sets)
    else:
        score(args.private, args.answers)


if __name__ == "__main__":
    main()
