"""Precision and recall of the advice guard on real agent answers (issue 23).

Runs the current `check_advice` rules over the final answers of the A/B benchmark and scores every flag against
the hand labels in benchmarks/advice_cases/agent_answers.yaml (one label per flagged sentence or code line).

    python benchmarks/advice_precision.py [--answers /tmp/ab7] [--split dev|held_out|all] [--list]

A flag is one anti-pattern id reported for one answer (what check_advice returns); it is right when at least one
sentence it rests on is labelled TRUE. Precision = right flags / flags. Recall = TRUE cases (labelled TRUE
sentences and the misses) whose answer gets that id flagged / TRUE cases; "n/a" when there are none.
A sentence the current rules match but nobody labelled is counted as unlabelled and listed with --list: label it
before trusting the figures. The held-out split is printed last.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import yaml

from mldebug_mcp.triage.advice import load_antipatterns, sentence_hits

HERE = Path(__file__).resolve().parent
LABELS = HERE / "advice_cases" / "agent_answers.yaml"


def _norm(text: str) -> str:
    return " ".join(text.split())


def _split_of(run: str, split: dict[str, list[str]]) -> str:
    task = run.split("--")[0]
    return next(name for name, tasks in split.items() if task in tasks)


def _ratio(num: int, den: int) -> str:
    return f"{num}/{den} = {num / den:.2f}" if den else f"{num}/0 = n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=Path, help="folder with <run>/ANSWER.md (default: answers_dir in the labels)")
    parser.add_argument("--split", choices=["dev", "held_out", "all"], default="all")
    parser.add_argument("--list", action="store_true", help="print every flagged sentence with its label")
    args = parser.parse_args(argv)

    data = yaml.safe_load(LABELS.read_text(encoding="utf-8"))
    answers = args.answers or Path(data["answers_dir"])
    split: dict[str, list[str]] = data["split"]
    labels = {(f["run"], f["anti_pattern"], _norm(f["sentence"])): f for f in data["flags"]}
    truths = [(f["run"], f["anti_pattern"]) for f in data["flags"] if str(f["label"]).upper() == "TRUE"]
    truths += [(m["run"], m["anti_pattern"]) for m in data.get("misses") or []]
    names = ["dev", "held_out"] if args.split == "all" else [args.split]
    ids = [item.id for item in load_antipatterns()]

    for name in names:
        runs = [r for r in data["runs"] if _split_of(r, split) == name]
        flags: dict[tuple[str, str], list[str]] = defaultdict(list)  # (run, id) -> labels of its sentences
        listing: list[str] = []
        for run in runs:
            text = (answers / run / "ANSWER.md").read_text(encoding="utf-8")
            for hit in sentence_hits(text):
                entry = labels.get((run, hit.id, _norm(hit.sentence)))
                label = str(entry["label"]).upper() if entry else "UNLABELLED"
                flags[(run, hit.id)].append(label)
                line = text.count("\n", 0, hit.start) + 1
                listing.append(f"  [{label}] {run} {hit.id} L{line}: {_norm(hit.sentence)[:200]}")
        run_set = set(runs)
        cases = [t for t in truths if t[0] in run_set]
        right = {k for k, labs in flags.items() if "TRUE" in labs}
        unlabelled = sum(labs.count("UNLABELLED") for labs in flags.values())
        print(f"== {name}: {len(runs)} answers, tasks {', '.join(t.split('-')[0] for t in split[name])}")
        if args.list:
            print("\n".join(listing))
        print(f"  flags {len(flags)} ({len(flags) / len(runs):.2f} per answer), sentences {sum(map(len, flags.values()))},"
              f" unlabelled sentences {unlabelled}")
        print(f"  precision {_ratio(len(right), len(flags))}   recall {_ratio(sum(c in flags for c in cases), len(cases))}")
        per_id = Counter(k[1] for k in flags)
        per_id_right = Counter(k[1] for k in right)
        per_id_cases = Counter(c[1] for c in cases)
        per_id_caught = Counter(c[1] for c in cases if c in flags)
        for pid in ids:
            if per_id[pid] or per_id_cases[pid]:
                print(f"    {pid:22s} flags {per_id[pid]:3d}  precision {_ratio(per_id_right[pid], per_id[pid]):16s}"
                      f"  recall {_ratio(per_id_caught[pid], per_id_cases[pid])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
