"""Engine behaviour: name resolution, dataflow, cross-file facts, noqa, selection, robustness."""

import ast
from pathlib import Path

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.lint.config import LintSettings, load_settings
from mldebug_mcp.lint.context import build_context
from mldebug_mcp.lint.engine import lint_paths, lint_source

SOFTMAX_LOSS = "import torch.nn.functional as F\ndef f(z, y):\n    return F.cross_entropy(F.softmax(z, 1), y)\n"


def _ctx(source: str):
    return build_context("m.py", source, ast.parse(source))


@pytest.mark.parametrize(
    ("imports", "expr", "expected"),
    [
        ("import torch.nn.functional as F", "F.softmax", "torch.nn.functional.softmax"),
        ("from torch.nn import functional as F", "F.softmax", "torch.nn.functional.softmax"),
        ("from torch import nn", "nn.CrossEntropyLoss", "torch.nn.CrossEntropyLoss"),
        ("import torch", "torch.nn.functional.softmax", "torch.nn.functional.softmax"),
        ("from torch.nn import CrossEntropyLoss as CE", "CE", "torch.nn.CrossEntropyLoss"),
        ("import numpy as np", "np.random.rand", "numpy.random.rand"),
        ("", "unknown.attr", None),
    ],
)
def test_import_aliases_resolve_to_qualified_names(imports, expr, expected):
    ctx = _ctx(f"{imports}\nx = {expr}\n")
    value = ctx.bindings[ctx.tree]["x"][0]
    assert ctx.qualname(value) == expected


def test_dataflow_through_self_attributes_and_forward():
    source = (
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x.sigmoid()\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.loss = nn.BCEWithLogitsLoss()\n"
        "        self.net = Net()\n"
        "    def step(self, x, y):\n"
        "        out = self.net(x)\n"
        "        return self.loss(out, y)\n"
    )
    # reported at the sigmoid, where the fix goes, naming the loss's line
    [finding] = lint_source(source)
    assert (finding.code, finding.line) == ("MLD001", 4) and "line 11" in finding.message


def test_activation_returned_in_another_file_is_seen(tmp_path):
    (tmp_path / "model.py").write_text(
        "import torch.nn as nn\nclass Classifier(nn.Module):\n    def forward(self, x):\n"
        "        return nn.functional.softmax(x, dim=-1)\n"
    )
    (tmp_path / "train.py").write_text(
        "import torch.nn as nn\nfrom model import Classifier\nmodel = Classifier()\ncriterion = nn.CrossEntropyLoss()\n"
        "def step(x, y):\n    return criterion(model(x), y)\n"
    )
    for jobs in (1, 2):
        result = lint_paths([tmp_path], jobs=jobs)
        # at the loss in train.py, and at the softmax in model.py where the fix goes
        assert sorted((Path(f.path).name, f.line, f.code) for f in result.findings) == [
            ("model.py", 4, "MLD001"), ("train.py", 6, "MLD001")]
        assert result.files == 2


def test_noqa_all_and_by_code():
    base = "import torch\n"
    assert lint_source(base + "torch.load('a')  # noqa\n") == []
    assert lint_source(base + "torch.load('a')  # noqa: MLD070\n") == []
    assert [f.code for f in lint_source(base + "torch.load('a')  # noqa: MLD001\n")] == ["MLD070"]
    assert lint_source(base + "torch.load(  # noqa: MLD070\n    'a',\n)\n") == []


def test_select_and_ignore_use_longest_prefix():
    settings = LintSettings(select=("MLD0",), ignore=("MLD07",))
    assert settings.enabled("MLD001") and not settings.enabled("MLD070")
    assert LintSettings(select=("MLD070",), ignore=("MLD0",)).enabled("MLD070")
    assert lint_source("import torch\ntorch.load('a')\n", settings=LintSettings(ignore=("MLD070",))) == []


def test_pyproject_settings_and_bad_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.mldebug]\nignore = ["MLD070"]\nexclude = ["gen_*.py"]\n')
    (tmp_path / "a.py").write_text("import torch\ntorch.load('x')\n")
    (tmp_path / "gen_b.py").write_text(SOFTMAX_LOSS)
    settings = load_settings(tmp_path)
    assert lint_paths([tmp_path], settings).findings == []
    assert load_settings(tmp_path, select=["MLD070"]).ignore == ("MLD070",)
    (tmp_path / "pyproject.toml").write_text('[tool.mldebug]\nselect = "MLD"\n')
    with pytest.raises(UsageError, match="must be a list of strings"):
        load_settings(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.mldebug]\nselct = ["MLD"]\n')
    with pytest.raises(UsageError, match="unknown \\[tool.mldebug\\] keys"):
        load_settings(tmp_path)


def test_directories_skip_vcs_venv_and_caches(tmp_path):
    for folder in (".git", ".venv", "venv", "__pycache__", "node_modules", "pkg.egg-info", "src"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.py").write_text(SOFTMAX_LOSS)
    result = lint_paths([tmp_path])
    assert {Path(f.path).parent.name for f in result.findings} == {"src"}


def test_unreadable_inputs_are_findings_not_crashes(tmp_path):
    (tmp_path / "syntax.py").write_text("def broken(:\n    pass\n")
    (tmp_path / "latin1.py").write_bytes(b"x = '\xe9'\n")
    (tmp_path / "nul.py").write_bytes(b"x = 1\x00\n")
    unreadable = tmp_path / "locked.py"
    unreadable.write_text("x = 1\n")
    unreadable.chmod(0)
    result = lint_paths([tmp_path])
    messages = {Path(f.path).name: f.message for f in result.findings}
    assert all(f.code == "MLD000" for f in result.findings)
    assert messages["syntax.py"].startswith("syntax error")
    assert messages["latin1.py"].startswith("not UTF-8")
    assert "nul.py" in messages
    import os
    if os.geteuid() != 0:  # root can read a file with no permissions
        assert messages["locked.py"].startswith("cannot read file")


@pytest.mark.parametrize("table", [
    '[tool.mldebug]\nignore = ["MLD070"]\n', '[tool."mldebug"]\nignore = ["MLD070"]\n',
    '[ tool . mldebug ]\nignore = ["MLD070"]\n', 'tool.mldebug.ignore = ["MLD070"]\n',
    '[tool]\nmldebug = {ignore = ["MLD070"]}\n', "[tool]\n'mldebug'.ignore = ['MLD070']\n",
    'tool = {mldebug = {ignore = ["MLD070"]}}\n',
])
def test_every_toml_spelling_of_the_table_is_read(tmp_path, table):
    # the TOML parser is skipped for files that never name the table: it must never skip one that does
    (tmp_path / "pyproject.toml").write_text(table + '[project]\nname = "mldebug-mcp-user"\n')
    assert load_settings(tmp_path).ignore == ("MLD070",)


def test_a_project_file_without_the_table_is_not_ours_to_parse(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mldebug-mcp"\nbroken = [\n')
    assert load_settings(tmp_path) == LintSettings()
    (tmp_path / "pyproject.toml").write_text('[tool.mldebug]\nselect = [\n')
    with pytest.raises(UsageError, match="cannot read"):
        load_settings(tmp_path)
