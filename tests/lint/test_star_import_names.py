"""Names that reach a module through `from x import *` (research code: `from model import *` in train.py, the
torch modules re-exported with it): ModuleContext.qualname resolves them when nothing else can give them."""

import ast
import textwrap
from pathlib import Path

from mldebug_mcp.lint.context import build_context
from mldebug_mcp.lint.engine import lint_paths


def _call_names(source: str) -> dict[str, str | None]:
    tree = ast.parse(textwrap.dedent(source))
    ctx = build_context("train.py", textwrap.dedent(source), tree)
    return {ast.unparse(c.func): ctx.call_name(c) for c in ctx.by_type[ast.Call]}


def test_one_star_import_gives_the_names_the_module_never_binds():
    names = _call_names("""
        from model import *
        net = Discriminator()
        criterion = nn.CrossEntropyLoss()
        print(len([1]))
        step = lambda x: x
        step(net)
    """)
    assert names["Discriminator"] == "model.Discriminator"
    assert names["nn.CrossEntropyLoss"] == "torch.nn.CrossEntropyLoss"
    assert names["print"] is None and names["len"] is None  # builtins
    assert names["step"] is None  # bound here: not the star import's


def test_with_two_star_imports_only_the_reexported_torch_modules_resolve():
    names = _call_names("""
        from utils import *
        from model import *
        net = Generator()
        opt = optim.Adam(net.parameters())
    """)
    assert names["Generator"] is None  # which module gives it is unknown
    assert names["optim.Adam"] == "torch.optim.Adam"


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
