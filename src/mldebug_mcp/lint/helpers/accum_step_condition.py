"""The test that decides when an accumulating loop steps: inverted, or off by one micro-batch.

Accumulation backwards on every micro-batch and steps every k: `if (i + 1) % k == 0: opt.step()` with `i`
counting from 0 (or `i % k == 0` with `i` counting from 1). Two slips keep training running with wrong steps:

- the test is inverted (`if i % k:`, `if i % k != 0:`, the step in the `else` of `== 0`, `if i % k == 0:
  continue` before the step): the optimiser steps on k - 1 of every k micro-batches and skips one;
- the counter is 0 on the first micro-batch and the step follows the backward (`if i % k == 0:` with `i` from
  `enumerate(loader)`): the first update uses one micro-batch, every later window k.

A counter's first value is read from what it is: an `enumerate`/`range` loop variable (its start), a name
built from those by arithmetic (`epoch * len(loader) + i`), a counter set before the loop and advanced by
a constant in it (before or after the test), Lightning's `batch_idx` argument of a training step.
"""

from __future__ import annotations

import ast
import copy
import re

from ..context import ModuleContext
from .graph import callee
from .loops import LOOPS, is_any_backward
from .optim_steps import FUNCTIONS, expanded_calls, top_statement, unconditional_in
from .optim_values import optimizer_step
from .script_scope import function_or_module

ACCUMULATION_COUNT = re.compile(r"(?i)accum|grad")
BATCH_INDEX_ARGUMENTS = {"batch_idx", "batch_nb", "batch_index"}  # Lightning's hooks count from 0


class StepTest:
    """`counter % divisor` compared with 0: `zero` says the test is true when the remainder is 0."""

    def __init__(self, counter: ast.expr, divisor: ast.expr, zero: bool, alone: bool) -> None:
        self.counter, self.divisor, self.zero, self.alone = counter, divisor, zero, alone


def modulo_test(test: ast.expr) -> StepTest | None:
    """`i % k == 0`, `not i % k`, `i % k`, `i % k != 0`, `i % k > 0`, `0 == i % k`, also one conjunct of `and`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = modulo_test(test.operand)
        return StepTest(inner.counter, inner.divisor, not inner.zero, inner.alone) if inner else None
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        found = [t for t in map(modulo_test, test.values) if t is not None]
        return StepTest(found[0].counter, found[0].divisor, found[0].zero, False) if len(found) == 1 else None
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        # `i % k == 0 or i + 1 == len(loader)`: the last window's flush leaves the first window as it is; only
        # for a count named for accumulation (`epoch % eval_interval == 0 or last` is a schedule, not a window)
        found = [t for t in map(modulo_test, test.values) if t is not None]
        return StepTest(found[0].counter, found[0].divisor, True, True) if len(found) == 1 and found[0].zero \
            and ACCUMULATION_COUNT.search(ast.unparse(found[0].divisor)) else None
    if _is_mod(test):
        return StepTest(test.left, test.right, False, True)  # truthy: a non-zero remainder
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right, op = test.left, test.comparators[0], test.ops[0]
        if _is_zero(left) and _is_mod(right):
            left, right = right, left
            op = {ast.Lt: ast.Gt, ast.Gt: ast.Lt}.get(type(op), type(op))()
        if not (_is_mod(left) and _is_zero(right)):
            return None
        if isinstance(op, ast.Eq):
            return StepTest(left.left, left.right, True, True)
        if isinstance(op, ast.NotEq | ast.Gt):
            return StepTest(left.left, left.right, False, True)
    return None


def flag_test(test: ast.expr, ctx: ModuleContext) -> tuple[StepTest, ast.expr] | None:
    """(the step test an `if` on a flag makes, the modulo comparison the flag was set from) for
    `is_accumulating = step % k != 0`, then `if is_accumulating:` or `if not is_accumulating:`: the one
    assignment of that name in the function, at its loop's level."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    name = test.operand if negated else test
    if not isinstance(name, ast.Name):
        return None
    values = ctx.values_of(name, name)
    if len(values) != 1 or ctx.scope_of(values[0]) is not ctx.scope_of(name):
        return None
    found = modulo_test(ast.UnaryOp(ast.Not(), values[0]) if negated else values[0])
    return (found, values[0]) if found is not None else None


def helper_test(test: ast.expr, ctx: ModuleContext) -> tuple[StepTest, ast.expr] | None:
    """(the step test, the expression the helper returns) for `if self._is_accumulation_boundary(step, n):`, a
    method of the class or function of this file whose one statement returns a modulo test of its parameters:
    the test read with the call's arguments in place of the parameters."""
    if not isinstance(test, ast.Call) or not test.args or test.keywords:
        return None
    func = test.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(test)
        helper = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == func.attr), None) \
            if cls is not None else None
        params = helper.args.args[1:] if helper is not None else []
    elif isinstance(func, ast.Name):
        helper = ctx.functions.get(func.id)
        params = helper.args.args if isinstance(helper, ast.FunctionDef) else []
    else:
        return None
    if helper is None or len(helper.body) != 1 or not isinstance(helper.body[0], ast.Return) \
            or helper.body[0].value is None or len(params) != len(test.args):
        return None
    given = {p.arg: a for p, a in zip(params, test.args)}
    found = modulo_test(_Substituted(given).visit(copy.deepcopy(helper.body[0].value)))
    return (found, helper.body[0].value) if found is not None else None


class _Substituted(ast.NodeTransformer):
    """A copy of an expression with its parameters' names replaced by the arguments a call passes."""

    def __init__(self, given: dict[str, ast.expr]) -> None:
        self.given = given

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.given.get(node.id, node)


def test_of(node: ast.If, ctx: ModuleContext) -> StepTest | None:
    """The step test of an `if`: its own modulo comparison, the one its flag was set from, or the one a helper
    it calls returns."""
    found = modulo_test(node.test)
    if found is None:
        flag = flag_test(node.test, ctx) or helper_test(node.test, ctx)
        found = flag[0] if flag is not None else None
    return found


def _is_mod(expr: ast.AST) -> bool:
    return isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) and not isinstance(expr.left, ast.Constant)


def _is_zero(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == 0 and not isinstance(expr.value, bool)


def _ends_in_continue(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Continue)


def _backwards(calls) -> list[tuple[ast.Call, ast.Call]]:
    return [(c, via) for c, via in calls if is_any_backward(c)]


class Guard:
    """An `if` of an accumulating loop that decides its step: whether it steps on a zero remainder, and
    whether the backward of the pass has run by the time the test is read."""

    def __init__(self, test: StepTest, steps_on_zero: bool, after_backward: bool) -> None:
        self.test, self.steps_on_zero, self.after_backward = test, steps_on_zero, after_backward


def step_guard(node: ast.If, ctx: ModuleContext) -> Guard | None:
    """The accumulation guard `node` is, when a branch of it (or the rest of the loop, after `continue`)
    steps an optimiser whose gradients a backward outside the `if` adds up on every pass."""
    test = test_of(node, ctx)
    if test is None or isinstance(test.divisor, ast.Constant) and test.divisor.value in (0, 1):
        return None
    owner = ctx.enclosing(node, LOOPS + FUNCTIONS)
    if owner is None:
        return None
    calls = list(expanded_calls(owner.body, ctx))
    inside = set(ast.walk(node))
    if _ends_in_continue(node.body) and not node.orelse and isinstance(owner, LOOPS):
        branch, steps_on_zero = [(c, v) for c, v in calls if v.lineno > node.end_lineno], not test.zero
    else:
        body = {c for c, _ in expanded_calls(node.body, ctx)}
        stepping_body = any(optimizer_step(c, ctx) for c in body)
        other = list(expanded_calls(node.orelse, ctx))
        if stepping_body:
            branch, steps_on_zero = [(c, c) for c in body], test.zero
        elif any(optimizer_step(c, ctx) for c, _ in other):
            branch, steps_on_zero = other, not test.zero
        else:
            return None
    steps = [c for c, _ in branch if optimizer_step(c, ctx)]
    both = _backward_in_both(node, ctx)
    if not steps or (_backwards(branch) and not both):
        return None  # a backward in the branch: an update taken every k passes (a generator every n_critic)
    if both:
        # `if accumulating: with model.no_sync(): loss.backward()` / `else: loss.backward(); opt.step()`: a
        # backward on every pass, before the step of its branch
        return Guard(test, steps_on_zero, True) if all(
            any(b.lineno < s.lineno for b, _ in _backwards(branch)) for s in steps) else None
    every_pass = [(b, via) for b, via in _backwards(calls) if via not in inside and unconditional_in(via, owner, ctx)]
    if not every_pass:
        return None
    # another optimiser stepping on every pass: alternating updates, not accumulation
    stepping = {v for _, v in branch} | inside
    if any(optimizer_step(c, ctx) and v not in stepping and unconditional_in(v, owner, ctx) for c, v in calls):
        return None
    return Guard(test, steps_on_zero, any(via.lineno < node.lineno for _, via in every_pass))


def _backward_in_both(node: ast.If, ctx: ModuleContext) -> bool:
    """Each branch of the `if` runs a backward (the DDP no_sync form of accumulation)."""
    return bool(node.orelse) and all(_backwards(expanded_calls(block, ctx)) for block in (node.body, node.orelse))


def first_value(expr: ast.expr, at: ast.stmt, ctx: ModuleContext, depth: int = 4) -> int | None:
    """The counter's value when the test at `at` is read on the first pass, where it can be told."""
    if depth <= 0:
        return None
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add | ast.Sub | ast.Mult):
        left, right = first_value(expr.left, at, ctx, depth), first_value(expr.right, at, ctx, depth)
        if isinstance(expr.op, ast.Mult) and 0 in (left, right):
            return 0  # epoch * len(loader): 0 on the first epoch whatever the length
        if left is None or right is None:
            return None
        return left + right if isinstance(expr.op, ast.Add) else left - right if isinstance(expr.op, ast.Sub) \
            else left * right
    if isinstance(expr, ast.Name):
        return _name_first_value(expr.id, at, ctx, depth - 1)
    return None


def _name_first_value(name: str, at: ast.stmt, ctx: ModuleContext, depth: int) -> int | None:
    for ancestor in ctx.ancestors(at):
        if isinstance(ancestor, FUNCTIONS):
            args = ancestor.args
            if ancestor.name == "training_step" and name in BATCH_INDEX_ARGUMENTS and name in {
                    a.arg for a in [*args.posonlyargs, *args.args]}:
                return 0
            return None
        if not isinstance(ancestor, LOOPS):
            continue
        start = _loop_variable_start(name, ancestor, at, ctx, depth)
        if start is not False:
            return start
        body_value = _assigned_in_body(name, ancestor, at, ctx, depth)
        if body_value is not False:
            return body_value
        counted = _counter(name, ancestor, at, ctx, depth)
        if counted is not False:
            return counted
    return None


def _loop_variable_start(name: str, loop: ast.AST, at: ast.stmt, ctx: ModuleContext, depth: int):
    """The first value of a `for` loop's index (`enumerate(...)`, `range(...)`, also wrapped in tqdm), None when
    unknown, False when `name` is not its index."""
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return False
    target, source = loop.target, loop.iter
    if isinstance(source, ast.Call) and callee(source.func) not in {"enumerate", "range"} and source.args \
            and isinstance(source.args[0], ast.Call) and callee(source.args[0].func) == "enumerate":
        source = source.args[0]  # tqdm(enumerate(loader))
    if not isinstance(source, ast.Call):
        return False
    if callee(source.func) == "enumerate" and isinstance(target, ast.Tuple) and target.elts \
            and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name:
        start = source.args[1] if len(source.args) > 1 else next(
            (k.value for k in source.keywords if k.arg == "start"), None)
        return 0 if start is None else first_value(start, at, ctx, depth)
    if callee(source.func) == "range" and isinstance(target, ast.Name) and target.id == name and source.args:
        return 0 if len(source.args) == 1 else first_value(source.args[0], at, ctx, depth)
    if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
        return None  # bound by this loop, from something else
    return False


def _assigned_in_body(name: str, loop: ast.AST, at: ast.stmt, ctx: ModuleContext, depth: int):
    """`done = epoch * len(loader) + i` at the top level of the loop body, before the test."""
    here = top_statement(at, loop.body, ctx)
    for stmt in loop.body:
        if stmt is here:
            break
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            return first_value(stmt.value, stmt, ctx, depth)
    return False


def _counter(name: str, loop: ast.AST, at: ast.stmt, ctx: ModuleContext, depth: int):
    """A name set to a constant before the loop and advanced by a constant on every pass: its value at the
    test counts the advance only when it comes before the test."""
    advances = [n for n in ast.walk(loop) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
                and n.target.id == name]
    assigned = [n for n in ast.walk(loop) if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for tg in n.targets for t in ast.walk(tg))]
    if not advances:
        return False
    if len(advances) != 1 or assigned or not isinstance(advances[0].op, ast.Add) \
            or not isinstance(advances[0].value, ast.Constant) or not unconditional_in(advances[0], loop, ctx):
        return None
    # a script's loop at module level counts from a value set at the top of the script
    owner = function_or_module(loop, ctx)
    before = [n for n in ast.walk(owner) if isinstance(n, ast.Assign) and n.lineno < loop.lineno
              and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name
              and (owner is not ctx.tree or ctx.scope_of(n) is ctx.tree)]
    if not before or (ctx.enclosing(before[-1], LOOPS + FUNCTIONS) or ctx.tree) not in (owner, *(
            a for a in ctx.ancestors(loop) if isinstance(a, LOOPS))):
        return None
    start = first_value(before[-1].value, before[-1], ctx, depth)
    if start is None:
        return None
    here, advance = top_statement(at, loop.body, ctx), top_statement(advances[0], loop.body, ctx)
    if here is None or advance is None:
        return None
    order = loop.body.index(advance) < loop.body.index(here)
    return start + advances[0].value.value if order else start
