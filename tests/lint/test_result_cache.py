"""The lint result cache: an unchanged file is read but not parsed or checked again, and nothing it keeps can
make a run differ from a run without it (changed text, other settings, other files' facts, files read beside
the module, the allow-list, a damaged cache file)."""

from __future__ import annotations

import json
import os

import pytest

from mldebug_mcp.lint import engine, result_cache
from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_paths
from mldebug_mcp.services.lint import lint
from mldebug_mcp.services.paths import AllowedDirs

MODEL = ("import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
         "        super().__init__()\n        self.fc = nn.Linear(4, 3)\n\n    def forward(self, x):\n"
         "        return torch.softmax(self.fc(x), dim=1)\n")
LOGITS_MODEL = MODEL.replace("torch.softmax(self.fc(x), dim=1)", "self.fc(x)")
TRAIN = ("import torch\nimport torch.nn as nn\n\nfrom model import Net\n\nmodel = Net()\n"
         "criterion = nn.CrossEntropyLoss()\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
         "for x, y in loader:\n    optimizer.zero_grad()\n    loss = criterion(model(x), y)\n    loss.backward()\n"
         "    optimizer.step()\n")
ALONE = "import torch.nn.functional as F\n\ndef f(x, y):\n    return F.cross_entropy(F.softmax(x, dim=1), y)\n"
# np.random's global state in a Dataset's workers: a warning only where the project pins torch below 1.9 (MLD053)
WORKER_RNG = ("import numpy as np\nfrom torch.utils.data import DataLoader, Dataset\n\n\nclass Crops(Dataset):\n"
              "    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n"
              "        return np.random.randint(0, 8)\n\n\n"
              "loader = DataLoader(Crops(), batch_size=4, shuffle=True, num_workers=4)\n")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("MLDEBUG_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def parses(monkeypatch):
    """The paths parsed (and checked) from now on."""
    seen: list[str] = []
    original = engine.parse_source

    def counted(source, path, notebook=False):
        seen.append(os.path.basename(path))
        return original(source, path, notebook)

    monkeypatch.setattr(engine, "parse_source", counted)
    return seen


def _codes(report) -> list[tuple[str, str, int, str]]:
    return [(os.path.basename(f.path), f.code, f.line, f.severity) for f in report.findings]


def _project(tmp_path, **files: str):
    folder = tmp_path / "project"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text)
    return folder


def test_an_unchanged_file_is_not_parsed_again_and_gives_the_same_report(tmp_path, cache_dir, parses):
    folder = _project(tmp_path, alone=ALONE, model=LOGITS_MODEL)
    first = lint_paths([folder], LintSettings(), cache=True)
    assert sorted(parses) == ["alone.py", "model.py"]
    parses.clear()
    second = lint_paths([folder], LintSettings(), cache=True)
    assert parses == []
    assert second == first
    assert _codes(first) == [("alone.py", "MLD001", 4, "error")]


def test_files_that_tell_each_other_facts_give_the_same_report_from_the_cache(tmp_path, cache_dir, parses):
    folder = _project(tmp_path, model=MODEL, train=TRAIN)
    first = lint_paths([folder], LintSettings(), cache=True)
    assert _codes(first) == [("model.py", "MLD001", 11, "error"), ("train.py", "MLD001", 11, "error")]
    assert lint_paths([folder], LintSettings(), cache=True) == first
    assert lint_paths([folder], LintSettings()) == first  # and without the cache


def test_a_changed_file_is_checked_again_and_other_files_facts_still_reach_it(tmp_path, cache_dir, parses):
    folder = _project(tmp_path, model=LOGITS_MODEL, train=TRAIN)
    assert lint_paths([folder], LintSettings(), cache=True).findings == []
    (folder / "model.py").write_text(MODEL)  # the model now returns a softmax: train.py's loss meets it
    parses.clear()
    report = lint_paths([folder], LintSettings(), cache=True)
    # train.py's first pass comes from the cache; it is checked again with the model's facts, as without a cache
    assert parses[0] == "model.py" and "train.py" in parses
    assert _codes(report) == [("model.py", "MLD001", 11, "error"), ("train.py", "MLD001", 11, "error")]


def test_other_settings_do_not_share_outcomes(tmp_path, cache_dir):
    folder = _project(tmp_path, alone=ALONE)
    assert _codes(lint_paths([folder], LintSettings(), cache=True)) == [("alone.py", "MLD001", 4, "error")]
    assert lint_paths([folder], LintSettings(ignore=("MLD001",)), cache=True).findings == []
    assert len(list(cache_dir.glob("lint-*.json"))) == 2


def test_an_outcome_that_read_the_projects_dependency_files_is_not_kept(tmp_path, cache_dir):
    folder = _project(tmp_path, data=WORKER_RNG)
    requirements = folder / "requirements.txt"
    requirements.write_text("torch==1.8.1\n")
    assert _codes(lint_paths([folder], LintSettings(), cache=True)) == [("data.py", "MLD053", 10, "warning")]
    requirements.unlink()  # the pin is gone, the code is the same: torch >= 1.9 reseeds NumPy per worker
    assert _codes(lint_paths([folder], LintSettings(), cache=True)) == [("data.py", "MLD053", 10, "info")]


def test_the_allow_list_is_checked_on_every_run_even_for_a_kept_outcome(tmp_path, cache_dir):
    inside, outside = tmp_path / "project", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.py").write_text(ALONE)
    (inside / "link.py").symlink_to(outside / "secret.py")
    assert [f.code for f in lint([str(inside)]).findings] == ["MLD001"]  # the CLI follows links as given: kept
    refused = lint([str(inside)], allowed=AllowedDirs((inside,))).findings
    assert [f.code for f in refused] == ["MLD000"]
    assert "outside the allowed directories" in refused[0].message


@pytest.mark.parametrize("damage", [
    b"not json", b'{"entries": []}', b"[1, 2]",
    # an entry whose finding is not one the cache wrote (a line that is text)
    None,
])
def test_a_damaged_cache_file_costs_a_check_never_a_wrong_report(tmp_path, cache_dir, parses, damage):
    folder = _project(tmp_path, alone=ALONE)
    expected = _codes(lint_paths([folder], LintSettings(), cache=True))
    [stored] = cache_dir.glob("lint-*.json")
    if damage is None:
        state = json.loads(stored.read_bytes())
        for _, outcome in state["entries"].values():
            outcome["findings"][0]["line"] = "4"
        damage = json.dumps(state).encode()
    stored.write_bytes(damage)
    parses.clear()
    assert _codes(lint_paths([folder], LintSettings(), cache=True)) == expected
    assert parses == ["alone.py"]
    parses.clear()
    assert _codes(lint_paths([folder], LintSettings(), cache=True)) == expected  # written again, whole
    assert parses == []


def test_off_keeps_nothing(tmp_path, monkeypatch, parses):
    monkeypatch.setenv("MLDEBUG_CACHE_DIR", "off")
    monkeypatch.chdir(tmp_path)
    folder = _project(tmp_path, alone=ALONE)
    lint_paths([folder], LintSettings(), cache=True)
    lint_paths([folder], LintSettings(), cache=True)
    assert parses == ["alone.py", "alone.py"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


def test_another_linter_build_starts_afresh_and_removes_the_old_files(tmp_path, cache_dir, monkeypatch, parses):
    folder = _project(tmp_path, alone=ALONE)
    lint_paths([folder], LintSettings(), cache=True)
    [old] = cache_dir.glob("lint-*.json")
    monkeypatch.setattr(result_cache, "linter_build", lambda: "0123456789abcdef")  # an upgrade or an edited rule
    parses.clear()
    lint_paths([folder], LintSettings(), cache=True)
    assert parses == ["alone.py"]
    assert [p.name for p in cache_dir.glob("lint-*.json")] != [old.name]
    assert not old.exists()


def test_the_oldest_entries_go_beyond_the_limit(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setattr(result_cache, "MAX_ENTRIES", 2)
    folder = _project(tmp_path, a=ALONE, b=ALONE, c=ALONE)
    lint_paths([folder / "a.py"], LintSettings(), cache=True)
    lint_paths([folder / "b.py", folder / "c.py"], LintSettings(), cache=True)
    [stored] = cache_dir.glob("lint-*.json")
    assert [os.path.basename(p) for p in json.loads(stored.read_bytes())["entries"]] == ["b.py", "c.py"]


def test_worker_processes_use_and_fill_the_cache_alike(tmp_path, cache_dir):
    folder = _project(tmp_path, model=MODEL, train=TRAIN, alone=ALONE)
    alone = lint_paths([folder], LintSettings(), jobs=1)
    assert lint_paths([folder], LintSettings(), jobs=2, cache=True) == alone
    assert lint_paths([folder], LintSettings(), jobs=2, cache=True) == alone
    assert lint_paths([folder], LintSettings(), jobs=1, cache=True) == alone


def test_the_cli_keeps_outcomes_unless_told_not_to(tmp_path, cache_dir, run_cli, parses):
    folder = _project(tmp_path, alone=ALONE)
    assert run_cli("lint", str(folder)).code == 1
    assert run_cli("lint", str(folder)).code == 1
    assert parses == ["alone.py"]
    assert run_cli("lint", "--no-cache", str(folder)).code == 1
    assert parses == ["alone.py", "alone.py"]


def test_each_project_has_its_own_file_and_the_least_recent_go_beyond_the_limit(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setattr(result_cache, "MAX_FILES", 2)
    projects = []
    for name in ("one", "two", "three"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "alone.py").write_text(ALONE)
        lint_paths([folder], LintSettings(), cache=True)
        projects.append(folder)
        # a small project's run reads only its own entries
        assert len(list(cache_dir.glob("lint-*.json"))) == min(len(projects), 2)
    kept = [json.loads(p.read_bytes())["entries"] for p in cache_dir.glob("lint-*.json")]
    assert sorted(os.path.basename(os.path.dirname(path)) for entries in kept for path in entries) == ["three", "two"]
