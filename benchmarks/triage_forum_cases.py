"""How often the confirmed root cause of a real forum case is among triage's top hypotheses.

The cases (benchmarks/triage_cases/collected_*.yaml) are real threads from public forums and issue
trackers: the asker's description in their own words and the root cause the thread confirmed. They were
collected by helpers who never saw the catalogue, and labelled with catalogue cause ids
(labels_*.yaml) by helpers who never saw triage's output. Cases whose confirmed cause is not in the
catalogue are labelled [] and count as misses.

Beside triage's own rates it prints two reference readers, both LLM helpers working under neutral case ids:
- `expert` (expert_ranked.yaml): five catalogue causes ranked from the description and the catalogue alone,
  i.e. what the words support for a reader that understands them;
- `agent` (agent_reranked.yaml): three causes chosen from triage's own top ten, as an agent calling the tool
  would; a snapshot of triage's candidates at the time it was made (the file says when);
- `expert19` and `agent19` (readers/*.yaml, made with triage_readers.py for issue 19, held-out sets only): five
  causes from the catalogue alone, and five from triage's top ten together with the whole catalogue.
Triage itself is scored on its top ten (limit=10), the candidates it hands an agent.

Splits:
- `heldout`: collected_d.yaml, collected and labelled blind; none of its threads was in the case base when it was
  scored, no setting was chosen on it, and only its aggregate is read. This was the test.
- `fresh`: collected_e.yaml, collected and labelled blind in the same way on 2026-11-25, after that day's
  catalogue changes; aggregate only.
- `blind_f`: collected_f.yaml, 45 GitHub threads collected 2026-11-27 by three helpers who never saw the
  catalogue or triage's output, labelled by a fourth who never saw triage's output; scored once.
- `blind_g`: collected_g.yaml, 44 GitHub threads collected the same way later that day (a fourth set), labelled
  after that session's catalogue additions; scored once.
- `blind_h`: collected_h.yaml, a fifth set collected the same way on 2026-11-27 (sixth session); scored once.
- `blind_i`: collected_i.yaml, a sixth set collected the same way later in that session; scored once.
- `blind_j`: collected_j.yaml, a seventh set collected the same way later still; scored once.
- `blind_k`: collected_k.yaml, an eighth set collected the same way on 2026-11-27 (seventh session); scored once.
  After each of d-j was scored, its threads' paraphrases joined the case base (data/cases/c_forum_d..j.yaml):
  from then on they are development data and are scored, like a/b/c, against an index without their fold.
- `dev`: the cases of collected_a/b/c.yaml whose sha1(url) starts with a hex digit below 5; their misses
  may be read. All of a/b/c (dev and earlier) make up the forum score the ranking factors are tuned on
  (triage_tune.py).
- `earlier`: the rest of collected_a/b/c.yaml. They were held out until paraphrases of all a/b/c threads
  joined the case base (data/cases/c_forum_*.yaml). Each a/b/c case is now scored against an index built
  without the paraphrases of its fold of threads (5 folds by sha1 of the URL), so it is never matched
  against our own paraphrase of it; only the aggregate of `earlier` is looked at.

    python benchmarks/triage_forum_cases.py              # hit rates per split
    python benchmarks/triage_forum_cases.py --show dev   # each dev case with its top three
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from functools import cache
from pathlib import Path

import yaml

from mldebug_mcp.triage.catalogue import load_catalogue
from mldebug_mcp.triage.matcher import CauseIndex
from mldebug_mcp.services.triage import triage

CASES = Path(__file__).parent / "triage_cases"
DEV_DIGITS = "01234"
HELD_OUT = {"collected_d.yaml": "heldout", "collected_e.yaml": "fresh", "collected_f.yaml": "blind_f",
            "collected_g.yaml": "blind_g", "collected_h.yaml": "blind_h",
            "collected_i.yaml": "blind_i", "collected_j.yaml": "blind_j",
            "collected_k.yaml": "blind_k"}
READERS = {"expert": CASES / "expert_ranked.yaml", "agent": CASES / "agent_reranked.yaml",
           # Issue 19's readers (triage_readers.py): expert and agent with the catalogue, on the held-out sets only.
           "expert19": CASES / "readers" / "expert.yaml", "agent19": CASES / "readers" / "agent.yaml"}
# Collected but not yet scored: kept out of every row (and of tuning) until its one scoring.
PENDING: set[str] = set()
SPLITS = ("dev", "earlier", "heldout", "fresh", "blind_f", "blind_g", "blind_h", "blind_i", "blind_j", "blind_k")
FOLDS = 5
TOP = (1, 3, 5, 10)


def split_of(file_name: str, url: str) -> str:
    if file_name in HELD_OUT:
        return HELD_OUT[file_name]
    return "dev" if hashlib.sha1(url.encode()).hexdigest()[0] in DEV_DIGITS else "earlier"


def load_cases() -> list[dict]:
    cases = []
    for collected in sorted(CASES.glob("collected_*.yaml")):
        if collected.name in PENDING:
            continue
        labels_path = collected.with_name(collected.name.replace("collected_", "labels_"))
        if not labels_path.exists():
            print(f"skipping {collected.name}: no {labels_path.name} yet", file=sys.stderr)
            continue
        labels = yaml.safe_load(labels_path.read_text(encoding="utf-8"))
        for case in yaml.safe_load(collected.read_text(encoding="utf-8")):
            label = labels.get(case["id"])
            if label is None:
                raise SystemExit(f"{labels_path.name} has no label for case {case['id']}")
            split = split_of(collected.name, case["url"])
            cases.append({**case, "causes": label["causes"], "split": split, "file": collected.name})
    return cases


def fold_of(url: str) -> int:
    return int(hashlib.sha1(url.encode()).hexdigest(), 16) % FOLDS


@cache
def index_without_fold(fold: int) -> CauseIndex:
    """The bundled index less the case-base entries (among them the forum threads' paraphrases) of one fold."""
    catalogue = load_catalogue()
    return CauseIndex(catalogue.model_copy(update={"cases": tuple(c for c in catalogue.cases if fold_of(c.url) != fold)}))


@cache
def paraphrased_urls() -> frozenset[str]:
    """Threads whose paraphrase is in the bundled case base (a/b/c, and each later set once it was scored)."""
    return frozenset(c.url.rstrip("/") for c in load_catalogue().cases)  # a trailing slash is the same thread


def evaluate(cases: list[dict]) -> list[dict]:
    for case in cases:
        # A thread must not be matched against our own paraphrase of it: a paraphrased thread is scored against
        # an index without its fold; a blind set (no paraphrase in the case base) against the bundled index.
        index = index_without_fold(fold_of(case["url"])) if case["url"].rstrip("/") in paraphrased_urls() else None
        result = triage(case["symptom"], limit=10, index=index)
        case["ranked"] = [h.cause for h in result.hypotheses]
        case["rank"] = rank_in(case["ranked"], case["causes"])
    return cases


def rank_in(ranked: list[str], causes: list[str]) -> int | None:
    ranks = [ranked.index(c) + 1 for c in causes if c in ranked]
    return min(ranks) if ranks else None


def summary(cases: list[dict], name: str, rank_key: str = "rank") -> str:
    n = len(cases)
    if not n:
        return f"{name:>8}: no cases"
    known = [c for c in cases if c["causes"]]
    cells = []
    for k in TOP:
        hits = sum(1 for c in cases if c[rank_key] is not None and c[rank_key] <= k)
        cells.append(f"top-{k} {hits}/{n} = {hits / n:.0%}")
    in_catalogue = sum(1 for c in known if c[rank_key] is not None and c[rank_key] <= 3)
    return (f"{name:>8}: " + "  ".join(cells)
            + f"   (top-3 among the {len(known)} whose cause is in the catalogue: {in_catalogue / max(len(known), 1):.0%})")


def add_reader_ranks(cases: list[dict]) -> list[dict]:
    """Each reference reader's rank of the labelled cause (key "<reader>_rank"), for the cases it ranked."""
    for reader, path in READERS.items():
        ranked = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
        for case in cases:
            case[f"{reader}_rank"] = rank_in(ranked[case["id"]], case["causes"]) if case["id"] in ranked else None
            case[f"{reader}_ranked"] = case["id"] in ranked
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", choices=["dev", "earlier", "all"], help="print each case of a split (never a held-out one)")
    args = parser.parse_args()
    cases = add_reader_ranks(evaluate(load_cases()))
    for split in (*SPLITS, "all"):
        chosen = [c for c in cases if split in (c["split"], "all")]
        print(summary(chosen, split))
        for reader in READERS:
            read = [c for c in chosen if c[f"{reader}_ranked"]]
            if read:
                print(summary(read, reader, f"{reader}_rank"))
    if args.show:
        for case in cases:
            if case["file"] not in HELD_OUT and args.show in (case["split"], "all"):
                mark = "HIT " if case["rank"] is not None and case["rank"] <= 3 else "MISS"
                print(f"\n{mark} {case['id']} ({case['split']}) expected {case['causes']} rank {case['rank']}")
                print("     top:", ", ".join(case["ranked"][:5]))
                print("     symptom:", " ".join(case["symptom"].split())[:300])


if __name__ == "__main__":
    main()
