"""Valid but unusual Python must lint without error (and without false findings)."""

import sys
import textwrap

import pytest

from mldebug_mcp.lint.engine import lint_source

CASES = {
    "match": """
        def f(cmd):
            match cmd:
                case {"op": "train", **rest}:
                    return rest
                case [x, *ys] if x:
                    return ys
                case _:
                    return None
    """,
    "walrus": "import torch\nif (n := len([1])) > 0:\n    t = torch.zeros(n)\n",
    "async": """
        import asyncio
        async def fetch(loader):
            async for batch in loader:
                async with asyncio.timeout(1):
                    await asyncio.sleep(0)
            return [x async for x in loader]
    """,
    "decorators": """
        import functools, torch
        @functools.lru_cache(maxsize=None)
        @torch.no_grad()
        def cached(x):
            return x
        class A:
            @property
            def p(self):
                return 1
            @staticmethod
            def s(): ...
    """,
    "fstrings": 'x = 1\ns = f"{x!r:>{10}} {{literal}} {f\'{x}\'}"\n',
    "type_params": "def first[T](xs: list[T]) -> T:\n    return xs[0]\nclass Box[T]:\n    item: T\ntype Alias = list[int]\n",
    "lambda_comprehension": "f = lambda *a, **k: [y for x in a for y in x if (z := y)]\n",
    "star_and_slices": "a, *b = range(3)\nc = b[::-1]\nd = {**{}, 'k': 1}\n",
    "try_star": "try:\n    pass\nexcept* ValueError:\n    pass\n",
    "global_nonlocal": "g = 0\ndef o():\n    x = 1\n    def i():\n        nonlocal x\n        global g\n        x = g = 2\n    return i\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unusual_syntax_lints_clean(name):
    if name == "type_params" and sys.version_info < (3, 12):
        # PEP 695 syntax does not parse before 3.12: it must come back as one MLD000 finding naming the Python it
        # needs, not a crash
        [finding] = lint_source(textwrap.dedent(CASES[name]), f"{name}.py")
        assert finding.code == "MLD000" and finding.message.startswith("this file uses Python 3.12 syntax")
        return
    assert lint_source(textwrap.dedent(CASES[name]), f"{name}.py") == []


def test_huge_file_lints():
    body = "\n".join(f"def f{i}(x):\n    y = x * {i}\n    return y + {i}\n" for i in range(5000))
    assert lint_source(body, "huge.py") == []


def test_deeply_nested_expression_is_reported_not_crashed():
    source = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    findings = lint_source(source, "deep.py")
    assert len(findings) <= 1 and all(f.code == "MLD000" for f in findings)
