"""The forum benchmark's data stays consistent with the catalogue: a renamed or removed cause id would
otherwise turn hits into silent misses."""

from pathlib import Path

import pytest
import yaml

from mldebug_mcp.triage.catalogue import load_catalogue

CASES = Path(__file__).resolve().parents[2] / "benchmarks" / "triage_cases"
COLLECTED = sorted(CASES.glob("collected_*.yaml"))


def _ids(path: Path) -> set[str]:
    return {case["id"] for case in yaml.safe_load(path.read_text(encoding="utf-8"))}


def test_there_are_collected_sets():
    assert len(COLLECTED) >= 4


@pytest.mark.parametrize("collected", COLLECTED, ids=lambda p: p.name)
def test_every_collected_case_has_a_label_of_catalogue_causes(collected):
    labels = yaml.safe_load(collected.with_name(collected.name.replace("collected_", "labels_")).read_text(encoding="utf-8"))
    causes = set(load_catalogue().causes)
    assert _ids(collected) == set(labels)
    unknown = {case: entry["causes"] for case, entry in labels.items() if set(entry["causes"]) - causes}
    assert not unknown


@pytest.mark.parametrize("file_name, size", [("expert_ranked.yaml", 5), ("agent_reranked.yaml", 3)])
def test_reader_rankings_are_distinct_catalogue_causes_for_known_cases(file_name, size):
    ranked = yaml.safe_load((CASES / file_name).read_text(encoding="utf-8"))
    known = set().union(*(_ids(path) for path in COLLECTED))
    causes = set(load_catalogue().causes)
    assert set(ranked) <= known and len(ranked) >= 200
    bad = {case: picks for case, picks in ranked.items() if len(set(picks)) != size or set(picks) - causes}
    assert not bad


@pytest.mark.parametrize("file_name", ["readers/expert.yaml", "readers/agent.yaml"])
def test_issue_19_readers_rank_five_catalogue_causes_for_every_held_out_case(file_name):
    ranked = yaml.safe_load((CASES / file_name).read_text(encoding="utf-8"))
    held_out = set().union(*(_ids(CASES / f"collected_{s}.yaml") for s in "defghijk"))
    causes = set(load_catalogue().causes)
    assert set(ranked) == held_out
    bad = {case: picks for case, picks in ranked.items() if len(set(picks)) != 5 or set(picks) - causes}
    assert not bad
