"""The triage index kept on disk: same answers as a fresh build, rebuilt when stale or damaged, never fatal."""

from __future__ import annotations

import json
import os

import pytest

from mldebug_mcp.triage import index_cache
from mldebug_mcp.triage.catalogue import load_catalogue
from mldebug_mcp.triage.description import Description
from mldebug_mcp.triage.matcher import CauseIndex, _state_fits

REPORTS = (
    "loss goes nan after a few hundred steps with fp16",
    "validation accuracy stuck at 10% while training loss falls, I use nn.Softmax before CrossEntropyLoss",
    "my GAN discriminator loss goes to zero immediately",
)


def _fits(index: CauseIndex, text: str) -> dict:
    return {k: (round(v.score, 12), v.matched_symptom, v.keywords) for k, v in index.fit(Description.read(text)).items()}


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue()


@pytest.fixture(scope="module")
def built(catalogue):
    return CauseIndex.build_state(catalogue)


def test_an_index_from_a_json_round_trip_answers_as_the_fresh_build(catalogue, built):
    fresh = CauseIndex(catalogue)
    restored = CauseIndex(catalogue, json.loads(json.dumps(built)))
    for text in REPORTS:
        assert _fits(restored, text) == _fits(fresh, text)


def test_the_state_is_stored_once_and_read_back_without_building(tmp_path, monkeypatch, built):
    monkeypatch.setenv(index_cache.CACHE_ENV, str(tmp_path))
    calls = []

    def build():
        calls.append(1)
        return built

    first = index_cache.load_or_build("k1", build, lambda s: True)
    second = index_cache.load_or_build("k1", build, lambda s: True)
    assert calls == [1] and first == second == json.loads(json.dumps(built))
    assert [p.name for p in tmp_path.iterdir()] == ["triage-index-k1.json"]


def test_a_new_key_replaces_the_stale_file(tmp_path, monkeypatch):
    monkeypatch.setenv(index_cache.CACHE_ENV, str(tmp_path))
    index_cache.load_or_build("old", lambda: {"a": 1}, lambda s: True)
    index_cache.load_or_build("new", lambda: {"a": 2}, lambda s: True)
    assert [p.name for p in tmp_path.iterdir()] == ["triage-index-new.json"]


@pytest.mark.parametrize("damage", [b"{not json", b"[1, 2]", b'{"idf": {}}', b"\xff\xfe"])
def test_a_damaged_or_foreign_file_is_rebuilt(tmp_path, monkeypatch, catalogue, built, damage):
    monkeypatch.setenv(index_cache.CACHE_ENV, str(tmp_path))
    (tmp_path / "triage-index-k.json").write_bytes(damage)
    state = index_cache.load_or_build("k", lambda: built, lambda s: _state_fits(s, catalogue))
    assert _state_fits(state, catalogue)
    assert _state_fits(json.loads((tmp_path / "triage-index-k.json").read_text()), catalogue)


def test_an_oversized_file_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv(index_cache.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(index_cache, "MAX_BYTES", 10)
    (tmp_path / "triage-index-k.json").write_text('{"a": "' + "x" * 50 + '"}')
    assert index_cache.load_or_build("k", lambda: {"b": 1}, lambda s: True) == {"b": 1}


def test_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(index_cache.CACHE_ENV, "off")
    monkeypatch.chdir(tmp_path)
    assert index_cache.cache_folder() is None
    assert index_cache.load_or_build("k", lambda: {"b": 1}, lambda s: True) == {"b": 1}
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_folder_only_costs_the_build(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    monkeypatch.setenv(index_cache.CACHE_ENV, str(folder))
    assert index_cache.load_or_build("k", lambda: {"b": 1}, lambda s: True) == {"b": 1}


def test_a_folder_that_is_a_file_only_costs_the_build(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(index_cache.CACHE_ENV, str(blocker))
    assert index_cache.load_or_build("k", lambda: {"b": 1}, lambda s: True) == {"b": 1}


def test_the_digest_changes_with_any_text_and_with_how_texts_split():
    assert index_cache.digest(["ab", "c"]) != index_cache.digest(["a", "bc"])
    assert index_cache.digest(["ab"]) != index_cache.digest(["ac"])
    assert index_cache.digest(["ab"]) == index_cache.digest(["ab"])


def test_the_snapshot_is_named_by_every_data_file_and_the_code_that_reads_it():
    from pathlib import Path

    from mldebug_mcp.triage import snapshot

    named = set(snapshot._texts()[::2])
    data = Path(snapshot.HERE) / "data"
    assert {str(p.relative_to(data)) for p in data.rglob("*.yaml")} <= named
    assert set(snapshot.SOURCES) <= named


def test_a_changed_text_gives_a_new_snapshot_that_replaces_the_old(tmp_path, monkeypatch):
    from mldebug_mcp.triage import snapshot

    monkeypatch.setenv(index_cache.CACHE_ENV, str(tmp_path))
    texts = snapshot._texts()
    built, state = [], snapshot.build()
    monkeypatch.setattr(snapshot, "build", lambda: built.append(1) or json.loads(json.dumps(state)))
    try:
        for edit in ("", "", "an edited cause"):
            monkeypatch.setattr(snapshot, "_texts", lambda edit=edit: [*texts, edit])
            snapshot.bundled.cache_clear()
            snapshot.bundled()
        assert len(built) == 2  # the second call read the first one's file
        assert len(list(tmp_path.glob("triage-index-*.json"))) == 1
    finally:
        snapshot.bundled.cache_clear()


def test_a_table_is_stored_as_a_block_and_read_back_on_demand(tmp_path, monkeypatch):
    from mldebug_mcp.triage.text_table import TextTable

    monkeypatch.setenv(index_cache.CACHE_ENV, str(tmp_path))
    state = {"a": [1, 2], "terms": {"loss": "[1.5,[0,1]]", "nan": "", "\u00e9t\u00e9": "[\"\\n\u00e9\"]"}}
    index_cache.load_or_build("t", lambda: state, lambda s: True, table="terms")
    read = index_cache.load_or_build("t", lambda: pytest.fail("rebuilt"), lambda s: True, table="terms")
    assert isinstance(read["terms"], TextTable) and read["a"] == [1, 2]
    assert dict(read["terms"].items()) == state["terms"] and "nan" in read["terms"] and read["terms"].get("x") is None


@pytest.mark.parametrize("damage", [lambda b: b[:-1], lambda b: b[:-2] + b"9]", lambda b: b.replace(b"\n", b" ", 1)])
def test_a_damaged_block_is_rebuilt(tmp_path, monkeypatch, damage):
    monkeypatch.setenv(index_cache.CACHE_ENV, str(tmp_path))
    state = {"terms": {"loss": "[1.5,[0,1]]", "nan": "[2]"}}
    index_cache.load_or_build("t", lambda: state, lambda s: True, table="terms")
    path = tmp_path / "triage-index-t.json"
    path.write_bytes(damage(path.read_bytes()))
    built = []
    index_cache.load_or_build("t", lambda: built.append(1) or state, lambda s: True, table="terms")
    assert built == [1]
