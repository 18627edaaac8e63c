"""Triage's own top ten and top three, on the development sets only (issue 19: retrieval, not reading).

- forum: the real threads of collected_a/b/c.yaml in the askers' words, each scored against an index built
  without the case-base paraphrases of its fold of threads (as triage_forum_cases.py does);
- case base: 5-fold cross-validation over the bundled case base (each case against an index without its fold).

Only a, b and c are read: the held-out sets (collected_d/e, labels_d/e, readers/) are never opened here.

    python benchmarks/triage_retrieval.py             # the four rates
    python benchmarks/triage_retrieval.py --by-file   # also the case base read leave-one-file-out: each file of
                                                      # cases (a batch written together) against an index
                                                      # without that file, the nearest to unseen wording here
    python benchmarks/triage_retrieval.py --misses    # each forum case outside the top ten (dev split only):
                                                      # the confirmed cause's rank and what outranked it
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import yaml
from triage_forum_cases import DEV_DIGITS, fold_of, index_without_fold, rank_in

from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.catalogue import load_catalogue

CASES = Path(__file__).parent / "triage_cases"
DEVELOPMENT = ("a", "b", "c")  # never d or e: those are the held-out sets


def forum_cases() -> list[dict]:
    cases = []
    for letter in DEVELOPMENT:
        labels = yaml.safe_load((CASES / f"labels_{letter}.yaml").read_text(encoding="utf-8"))
        for case in yaml.safe_load((CASES / f"collected_{letter}.yaml").read_text(encoding="utf-8")):
            dev = hashlib.sha1(case["url"].encode()).hexdigest()[0] in DEV_DIGITS
            cases.append({**case, "causes": labels[case["id"]]["causes"], "dev": dev, "file": f"collected_{letter}.yaml"})
    return cases


def case_base() -> list[dict]:
    return [{"id": case.url, "url": case.url, "symptom": case.symptom, "causes": [case.cause], "dev": False}
            for case in load_catalogue().cases]


def by_file() -> list[int | None]:
    """The rank of each case-base case against an index without the whole file it comes from."""
    from mldebug_mcp.triage import catalogue as bundled
    from mldebug_mcp.triage.matcher import CauseIndex

    catalogue = load_catalogue()
    found = []
    for name in bundled._data_files("cases"):
        cases = bundled.parse_cases({name: bundled._read(name)})
        urls = {case.url for case in cases}
        index = CauseIndex(catalogue.model_copy(update={"cases": tuple(c for c in catalogue.cases if c.url not in urls)}))
        for case in cases:
            ranked = [h.cause for h in triage(case.symptom, limit=10, index=index, detail="compact").hypotheses]
            found.append(rank_in(ranked, [case.cause]))
    return found


def ranks(cases: list[dict], deep: bool = False) -> list[int | None]:
    found = []
    for case in cases:
        index = index_without_fold(fold_of(case["url"]))
        ranked = [h.cause for h in triage(case["symptom"], limit=10, index=index, detail="compact").hypotheses]
        case["ranked"] = ranked
        found.append(rank_in(ranked, case["causes"]))
        if deep:  # how near a miss came: the rank among twenty
            longer = [h.cause for h in triage(case["symptom"], limit=20, index=index, detail="compact").hypotheses]
            case["rank20"] = rank_in(longer, case["causes"])
    return found


def rates(found: list[int | None]) -> str:
    n = len(found)
    cells = [f"top-{k} {sum(1 for r in found if r is not None and r <= k)}/{n} = "
             f"{sum(1 for r in found if r is not None and r <= k) / n:.1%}" for k in (1, 3, 10)]
    return "  ".join(cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--misses", action="store_true", help="list the dev forum cases outside the top ten")
    parser.add_argument("--by-file", action="store_true", help="also the case base read leave-one-file-out")
    parser.add_argument("--no-cases", action="store_true", help="skip the case-base cross-validation")
    args = parser.parse_args()
    forum = forum_cases()
    found = ranks(forum, deep=args.misses)
    print(f"forum a/b/c ({len(forum)}): {rates(found)}")
    if not args.no_cases:
        print(f"case base CV ({len(case_base())}): {rates(ranks(case_base()))}")
    if args.by_file:
        found_by_file = by_file()
        print(f"case base by file ({len(found_by_file)}): {rates(found_by_file)}")
    if args.misses:
        for case, rank in zip(forum, found):
            if case["dev"] and (rank is None or rank > 3) and case["causes"]:
                print(f"\n{case['id']} expected {case['causes']} rank {rank} (of twenty: {case['rank20']})")
                print("   top:", ", ".join(case["ranked"][:10]))
                print("   symptom:", " ".join(case["symptom"].split())[:400])


if __name__ == "__main__":
    main()
