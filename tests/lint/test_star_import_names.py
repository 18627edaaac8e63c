"""The torch modules research code reaches through `from x import *` (`nn`, `F`, `optim`, `torch` imported in
the other file): ModuleContext.qualname resolves them when the module never binds the name. Other star-imported
names stay unknown: the rules read an unresolved bare call as a project function (MLD020 follows
`evaluate_model(self, ...)` of `from utils import *` into the project that way)."""

import ast
import textwrap
from pathlib import Path

from mldebug_mcp.lint.context import build_context
from mldebug_mcp.lint.engine import lint_paths


def _call_names(source: str) -> dict[str, str | None]:
    tree = ast.parse(textwrap.dedent(source))
    ctx = build_context("train.py", textwrap.dedent(source), tree)
    return {ast.unparse(c.func): ctx.call_name(c) for c in ctx.by_type[ast.Call]}


def test_a_star_import_gives_the_torch_modules_only():
    names = _call_names("""
        from utils import *
        from model import *
        net = Discriminator()
        criterion = nn.CrossEntropyLoss()
        opt = optim.Adam(net.parameters())
        step = lambda x: x
        step(net)
    """)
    assert names["nn.CrossEntropyLoss"] == "torch.nn.CrossEntropyLoss"
    assert names["optim.Adam"] == "torch.optim.Adam"
    assert names["Discriminator"] is None  # left to the rules' reading of project functions
    assert names["step"] is None


def test_a_module_that_binds_the_name_keeps_it():
    names = _call_names("""
        from model import *
        nn = make_layers()
        out = nn.CrossEntropyLoss()
    """)
    assert names["nn.CrossEntropyLoss"] is None


def test_without_a_star_import_an_unknown_name_stays_unknown():
    names = _call_names("""
        import torch
        net = Discriminator()
        criterion = nn.CrossEntropyLoss()
    """)
    assert names["Discriminator"] is None and names["nn.CrossEntropyLoss"] is None


def test_a_rule_sees_torch_through_a_star_import(tmp_path: Path):
    (tmp_path / "utils.py").write_text("import torch\nimport torch.nn as nn\n")
    (tmp_path / "evaluate.py").write_text("from utils import *\n\nstate = torch.load('model.pt')\n")
    found = [f for f in lint_paths([tmp_path]).findings if f.code == "MLD070"]
    assert [(Path(f.path).name, f.line) for f in found] == [("evaluate.py", 3)]
