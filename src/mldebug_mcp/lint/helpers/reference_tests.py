"""Test modules that compare values with a reference instead of training a model.

A pytest/unittest module (test_*.py, *_test.py) that never steps an optimiser runs its forward and
backward passes, metrics and recomputed formulas once on inputs it chose, and checks the result: a NaN or
an fp16 overflow there fails the test instead of silently corrupting weights. A test module that does
step an optimiser is a (small) training run and is linted like one.
"""

import ast
from pathlib import PurePath

from ..context import ModuleContext
from .loops import is_optimizer_step


def test_module(ctx: ModuleContext) -> bool:
    """The file is a test module by its name (not by its folder: fixtures and examples live under tests/)."""
    def named() -> bool:
        stem = PurePath(ctx.path).stem
        return stem.startswith("test_") or stem.endswith("_test") or stem == "conftest"
    return ctx.memo(("test-module",), named)


def reference_test_module(ctx: ModuleContext) -> bool:
    """A test module with no optimiser step anywhere in it: it checks values, it trains nothing."""
    return test_module(ctx) and not ctx.memo(("steps-an-optimiser",), lambda: any(
        is_optimizer_step(call, ctx) for call in ctx.by_type.get(ast.Call, ())))
