"""A file written for a newer Python than the one running the linter is named as such, with the fix (run a newer
Python), instead of a bare syntax error; under a Python that reads it, it is linted as usual."""

from __future__ import annotations

import sys

import pytest

from mldebug_mcp.lint.engine import lint_source
from mldebug_mcp.lint.newer_python import newer_syntax

NEWER = {
    "a type parameter list": ("import torch.nn as nn\n\nclass Agent[W: World](nn.Module):\n    pass\n", 3),
    "a type statement": ("import numpy as np\n\ntype DType = np.float32\n", 3),
    "an f-string that reuses its quotes or spans lines inside {}": (
        'from datetime import datetime\n\nLOGS = f"./logs/{datetime.now().strftime("%Y-%m-%d")}"\n', 3),
}
# what Python 3.11's parser says at those lines
MESSAGES = {"an f-string that reuses its quotes or spans lines inside {}": "f-string: unmatched '('"}


@pytest.mark.parametrize("what", NEWER)
def test_the_lines_the_parser_stopped_at_tell_the_version_needed(what):
    source, line = NEWER[what]
    error = SyntaxError(MESSAGES.get(what, "invalid syntax"))
    error.lineno = line
    assert newer_syntax(source, error, running=(3, 11)) == ("3.12", what)
    assert newer_syntax(source, error, running=(3, 12)) is None  # a 3.12 parser failing there: a real typo


def test_a_plain_typo_stays_a_syntax_error():
    error = SyntaxError("invalid syntax")
    error.lineno = 1
    assert newer_syntax("type_ = 3 +\n", error, running=(3, 11)) is None
    assert newer_syntax("x = 'class A[T]: pass' +\n", error, running=(3, 11)) is None  # inside a string
    unclosed = SyntaxError("f-string: expecting '}'")
    unclosed.lineno = 1
    assert newer_syntax('x = f"{a + }"\n', unclosed, running=(3, 11)) is None  # an f-string typo


@pytest.mark.parametrize("what", NEWER)
def test_the_finding_names_the_python_to_run(what):
    source, line = NEWER[what]
    findings = lint_source(source, "new.py")
    if sys.version_info >= (3, 12):
        assert not [f for f in findings if f.code == "MLD000"]
        return
    [finding] = findings
    assert finding.code == "MLD000" and finding.line == line
    assert finding.message.startswith(f"this file uses Python 3.12 syntax ({what})")
    assert "Python 3.12 or newer" in finding.fix
