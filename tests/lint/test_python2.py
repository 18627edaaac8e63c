"""A Python 2 file is one MLD000 finding that says Python 2 cannot be linted; a Python 3 file with a typo
still says syntax error."""

from __future__ import annotations

import pytest

from mldebug_mcp.lint.engine import lint_source
from mldebug_mcp.services.lint import lint

PYTHON2 = {
    "print statement": (
        ("import torch\n"
        "def train(model, loader, opt):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        loss = model(x, y)\n"
        "        if i % 100 == 0:\n"
        "            print 'iter %d loss %.4f' % (i, loss.data[0])\n"), 6),
    "exec statement": ("config = open('config.py').read()\nexec config in globals()\n", 2),
    "'except X, e:'": (
        ("try:\n"
        "    import cPickle as pickle\n"
        "except ImportError, e:\n"
        "    import pickle\n"), 3),
    "'raise E, message'": ("def check(x):\n    if x is None:\n        raise ValueError, 'x must be set'\n", 3),
    "backtick repr": ("def describe(epoch, lr):\n    return 'epoch ' + `epoch` + ' lr ' + `lr`\n", 2),
    "octal literal without 0o": ("import os\nos.makedirs('checkpoints', 0755)\n", 2),
    "'ur' string prefix": ("import re\nPATTERN = re.compile(ur'\\d+ epochs')\n", 2),
    "'<>' operator": ("def skip(batch):\n    return batch.size(0) <> 32\n", 2),
    "long integer literal": ("MAX_STEPS = 1000000L\n", 1),
}


@pytest.mark.parametrize("what", PYTHON2)
def test_python2_syntax_is_named_not_called_a_syntax_error(what):
    source, line = PYTHON2[what]
    [finding] = lint_source(source, "old.py")
    assert finding.code == "MLD000" and finding.severity == "error"
    assert finding.message.startswith("Python 2 syntax cannot be linted")
    assert f"({what})" in finding.message
    assert finding.line == line
    assert "Python 3" in finding.fix


@pytest.mark.parametrize("source", [
    "def f(:\n    pass\n",
    "x = (1,\n",
    "x = = 1  # a `backtick` and 0777 in a comment\n",
    "label = 'a `quoted` name' +\n",
    "print('loss', loss)\nif loss > 1\n    pass\n",
    "x = 00 +\n",
])
def test_a_python3_typo_still_says_syntax_error(source):
    [finding] = lint_source(source, "new.py")
    assert finding.code == "MLD000" and finding.message.startswith("syntax error: ")


def test_a_python2_file_in_a_folder_is_reported_and_the_others_checked(tmp_path):
    (tmp_path / "old.py").write_text(PYTHON2["print statement"][0])
    (tmp_path / "new.py").write_text("import torch\nstate = torch.load('m.pt')\n")
    report = lint([str(tmp_path)])
    assert [(f.path.rsplit("/", 1)[-1], f.code) for f in report.findings] == [("new.py", "MLD070"), ("old.py", "MLD000")]
    assert "Python 2 syntax" in report.findings[1].message


def test_old_pytorch_async_argument_is_read_as_the_keyword_it_was():
    """`x.cuda(async=True)` (PyTorch before 0.4) no longer parses on Python 3.7+; the file is linted anyway,
    with lines and columns unchanged, and its real findings still come out."""
    source = (
        "import torch.nn as nn\n"
        "def train(model, loader, opt):\n"
        "    crit = nn.CrossEntropyLoss()\n"
        "    for x, y in loader:\n"
        "        x, y = x.cuda(), y.cuda(async=True)\n"
        "        loss = crit(nn.functional.softmax(model(x), dim=1), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
    )
    findings = lint_source(source, "old.py")
    assert not [f for f in findings if f.code == "MLD000"]
    assert any(f.code == "MLD001" and f.line == 6 for f in findings)
    assert [f.code for f in lint_source("x = f(async = 1) +\n", "bad.py")] == ["MLD000"]  # other errors stay errors
