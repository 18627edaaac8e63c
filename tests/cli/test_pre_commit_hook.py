"""The pre-commit hook: one serial run over the changed files, so facts one file gives another hold."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
MODEL = ("import torch\nimport torch.nn.functional as F\n\n\nclass Net(torch.nn.Module):\n"
         "    def forward(self, x):\n        return F.softmax(self.fc(x), dim=1)\n")
TRAIN = ("import torch.nn.functional as F\nfrom model import Net\n\nnet = Net()\n\n\n"
         "def step(x, y):\n    return F.cross_entropy(net(x), y)\n")


def _hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["mldebug-lint"]
    return hooks[0]


def test_hook_runs_serially_on_the_changed_python_and_notebook_files():
    hook = _hook()
    assert hook["entry"] == "mldebug-mcp lint" and hook["language"] == "python"
    assert hook["require_serial"] is True  # pre-commit would otherwise split the files over parallel processes
    assert hook.get("pass_filenames", True) is True
    assert set(hook["types_or"]) == {"python", "pyi", "jupyter"}  # identify's tags for .py, .pyi, .ipynb
    assert "types" not in hook  # `types` would require every tag at once


def test_a_cross_file_finding_needs_both_files_in_one_run(run_cli, tmp_path, monkeypatch):
    """What require_serial buys: the softmax in model.py's forward reaches the loss in train.py."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    assert "train.py:8:28: MLD001" in run_cli("lint", "model.py", "train.py").out
    assert run_cli("lint", "train.py").code == 0
