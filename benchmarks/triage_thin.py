"""Thin reports: how often triage asks instead of guessing, and whether the answers help (issue 19).

On the held-out forum sets (collected_d, collected_e) triage marks a report thin when its leading weights
are flat or the report is short with no observation read (test_plan.thin_reason), and then returns the
decision tree's next questions. This benchmark:

    python benchmarks/triage_thin.py rates                      # how often triage asks, by report length
    python benchmarks/triage_thin.py packets OUT                # the thin cases' questions, for a reader
    python benchmarks/triage_thin.py score [ANSWERS]            # top-3 before and after the answers

`packets` writes `thin_questions.md`: each thin case under a neutral id with its thread URL, the asker's
words and triage's questions (node, question, how to answer, accepted answers), never triage's ranking,
a cause id or a label. A helper answers each question from the thread's later posts where they say it
(`unknown` otherwise) into ANSWERS/thin_answers.yaml ({case-NNN: {node: answer}}). `score` walks the tree
with those answers and reranks with the observations they imply, printing aggregates only.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import yaml
from triage_forum_cases import (
    rank_in,  # this folder's script: the same rank rule as the forum benchmark
)

from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.text import tokens
from mldebug_mcp.triage.tree import load_tree, walk

CASES = Path(__file__).parent / "triage_cases"
SETS = {"heldout": ("collected_d.yaml", "labels_d.yaml"), "fresh": ("collected_e.yaml", "labels_e.yaml")}
LIMIT = 10
SHORT_WORDS = 40  # content words; a forum report this short is a one-liner with a line or two of context
SEED = 20261127


def load_cases() -> list[dict]:
    cases = []
    for split, (collected, labels) in SETS.items():
        label_of = yaml.safe_load((CASES / labels).read_text(encoding="utf-8"))
        for case in yaml.safe_load((CASES / collected).read_text(encoding="utf-8")):
            entry = label_of.get(case["id"], {})
            causes = entry.get("causes", []) if isinstance(entry, dict) else list(entry or [])
            words = sum(1 for t in tokens(case["symptom"]) if not t.startswith("_"))
            cases.append({**case, "split": split, "causes": causes, "words": words})
    return cases


def share(hits: int, n: int) -> str:
    return f"{hits}/{n} = {hits / n:.0%}" if n else "0/0"


def rates() -> None:
    cases = load_cases()
    for case in cases:
        result = triage(case["symptom"], limit=LIMIT)
        case["thin"] = result.thin is not None
        case["top3"] = (rank_in([h.cause for h in result.hypotheses], case["causes"]) or 99) <= 3
    for name, chosen in (("all", cases), (f"short (< {SHORT_WORDS} words)", [c for c in cases if c["words"] < SHORT_WORDS]),
                         (f"longer (>= {SHORT_WORDS} words)", [c for c in cases if c["words"] >= SHORT_WORDS])):
        print(f"{name:>22}: triage asks on {share(sum(c['thin'] for c in chosen), len(chosen))}")
    # Whether asking is well aimed: the reports it asks on should be the ones it would rank badly.
    for flag, name in ((True, "asked (thin)"), (False, "ranked (not thin)")):
        chosen = [c for c in cases if c["thin"] is flag]
        print(f"{name:>22}: confirmed cause in triage's top three {share(sum(c['top3'] for c in chosen), len(chosen))}")


def packets(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    cases = load_cases()
    random.Random(SEED).shuffle(cases)
    parts, ids = [], {}
    for case in cases:
        result = triage(case["symptom"], limit=LIMIT)
        if result.thin is None:
            continue
        neutral = f"case-{len(ids) + 1:03d}"
        ids[neutral] = case["id"]
        questions = "\n".join(f"- node `{q.ref}`: {q.what}\n  how to answer: {q.how}\n  answers: {', '.join(q.answers)}"
                              for q in result.questions)
        parts.append(f"## {neutral}\n\nthread: {case['url']}\n\n{case['symptom'].strip()}\n\n### questions\n\n{questions}\n")
    (out / "thin_questions.md").write_text("\n".join(parts), encoding="utf-8")
    (out / "thin_ids.json").write_text(json.dumps(ids, indent=1), encoding="utf-8")
    print(f"{len(ids)} thin cases written to {out / 'thin_questions.md'}")


def answered_observations(tree, given: dict[str, str]) -> list[str]:
    """What the answers say about the run: each answered node's observation, on the tree's path or not (walk
    counts both: the thin report's questions are the most informative nodes, not the next ones from the start)."""
    return list(dict.fromkeys(walk(tree, given).observations))


def score(answers_dir: Path | None) -> None:
    """Top-3 before and after the answers. With ANSWERS, the reader's answers (under neutral ids) are first
    stored in real case ids in triage_cases/readers/thin_answers.yaml, which later runs read."""
    stored = CASES / "readers" / "thin_answers.yaml"
    if answers_dir is not None:
        ids = json.loads((answers_dir / "thin_ids.json").read_text(encoding="utf-8"))
        neutral = yaml.safe_load((answers_dir / "thin_answers.yaml").read_text(encoding="utf-8")) or {}
        real = {ids[case]: {node: str(a) for node, a in (neutral.get(case) or {}).items()} for case in ids}
        header = ("# Issue 19's thin-report benchmark: a helper's answers to triage's questions for each thin held-out\n"
                  "# case, taken from the thread's later posts ('unknown' where the thread does not say); made by\n"
                  "# benchmarks/triage_thin.py (packets, then score ANSWERS).\n")
        stored.write_text(header + yaml.safe_dump(real, sort_keys=True), encoding="utf-8")
    answers = yaml.safe_load(stored.read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in load_cases()}
    tree = load_tree()
    before = after = answered = moved_up = moved_down = 0
    for case_id, case_answers in answers.items():
        case = by_id[case_id]
        given = {node: a for node, a in case_answers.items() if a != "unknown"}
        first = triage(case["symptom"], limit=LIMIT)
        rank_before = rank_in([h.cause for h in first.hypotheses], case["causes"]) or 99
        observations = answered_observations(tree, given)
        answered += bool(observations)
        second = triage(case["symptom"], observations, limit=LIMIT) if observations else first
        rank_after = rank_in([h.cause for h in second.hypotheses], case["causes"]) or 99
        before += rank_before <= 3
        after += rank_after <= 3
        moved_up += rank_after < rank_before
        moved_down += rank_after > rank_before
    n = len(answers)
    print(f"thin cases: {n}; with at least one answer that the tree turns into an observation: {answered}")
    print(f"confirmed cause in the top three: before the answers {share(before, n)}, after {share(after, n)}")
    print(f"the confirmed cause moved up in {moved_up} and down in {moved_down} of the {n} cases")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("rates")
    sub.add_parser("packets").add_argument("out", type=Path)
    sub.add_parser("score").add_argument("answers", type=Path, nargs="?")
    args = parser.parse_args()
    if args.command == "rates":
        rates()
    elif args.command == "packets":
        packets(args.out)
    else:
        score(args.answers)


if __name__ == "__main__":
    main()
