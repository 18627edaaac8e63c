"""Ways an optimiser of several misses its zero_grad(): handed to a training function in place of another
(`train(..., g_optimizer, g_optimizer)` where `train` takes `g_optimizer, d_optimizer`: the first is zeroed
and stepped twice, the second never), zeroed only under a condition while it steps every iteration, or
zeroed and back-propagated into but never stepped at all."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .gan_updates import words
from .loops import LOOPS, calls_in_order, is_backward, is_optimizer_step
from .optim_params import dotted
from .optim_sched_order import OPTIMIZER_WORDS
from .optim_steps import FUNCTIONS, helper_calls, local_callee, unconditional_in
from .optim_values import optimizer_annotation
from .optim_zeroing import is_optimizer, keys


def optimizer_passed_twice(call: ast.Call, ctx: ModuleContext) -> tuple[ast.AST, str, str] | None:
    """(the second argument, the parameter it fills, the parameter the same optimiser filled first)."""
    bound = _bound(call, ctx)
    seen: dict[str, str] = {}
    function = local_callee(call, ctx) if bound else None
    for parameter, argument in bound:
        if not (words(parameter) & OPTIMIZER_WORDS or _used_as_optimizer(parameter, function, ctx)):
            continue
        name = dotted(argument)
        if name is None:
            continue
        if name in seen and seen[name] != parameter:
            return argument, parameter, seen[name]
        seen.setdefault(name, parameter)
    return None


def _used_as_optimizer(parameter: str, function: ast.AST | None, ctx: ModuleContext) -> bool:
    """Whatever the parameter is called: annotated as an optimiser (`opt: optim.Adam`), or the function
    calls both zero_grad() and step() on it."""
    if not isinstance(function, FUNCTIONS):
        return False
    arg = next((a for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
                if a.arg == parameter), None)
    if arg is None:
        return False
    if arg.annotation is not None and optimizer_annotation(ast.unparse(arg.annotation)):
        return True
    called = {c.func.attr for c in ctx.in_scope(function, (ast.Call,)) if isinstance(c.func, ast.Attribute)
              and isinstance(c.func.value, ast.Name) and c.func.value.id == parameter and not c.args}
    return {"zero_grad", "step"} <= called


def _bound(call: ast.Call, ctx: ModuleContext) -> list[tuple[str, ast.AST]]:
    pairs = [(k.arg, k.value) for k in call.keywords if k.arg]
    if len(call.args) < 2:
        return pairs
    function = local_callee(call, ctx)
    if function is None:
        return pairs
    parameters = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    if parameters and parameters[0] in {"self", "cls"} and isinstance(call.func, ast.Attribute):
        parameters = parameters[1:]
    return list(zip(parameters, call.args, strict=False)) + pairs


def sometimes(zero: ast.Call, step: ast.Call, block: ast.AST, ctx: ModuleContext) -> bool:
    """The zero_grad() runs only under an `if` of this iteration (with no zero_grad of the same receiver on
    the other side) while the step runs every iteration."""
    if not any(a is block for a in ctx.ancestors(zero)) or unconditional_in(zero, block, ctx):
        return False
    if not unconditional_in(step, block, ctx):
        return False
    branch = next((a for a in ctx.ancestors(zero) if isinstance(a, ast.If)), None)
    if branch is None or not any(a is block for a in ctx.ancestors(branch)):
        return False
    inside_body = any(a in branch.body for a in (zero, *ctx.ancestors(zero)))
    other = branch.orelse if inside_body else branch.body
    names = keys(zero.func.value, ctx)
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "zero_grad"
           and keys(n.func.value, ctx) & names for stmt in other for n in ast.walk(stmt)):
        return False
    return not _zeroed_under_the_opposite_test(zero, branch, names, block, ctx)


def _zeroed_under_the_opposite_test(zero: ast.Call, branch: ast.If, names: set[str], block: ast.AST,
                                    ctx: ModuleContext) -> bool:
    """detectron2's run_step: `if self.zero_grad_before_forward: opt.zero_grad()` before the forward and `if not
    self.zero_grad_before_forward: opt.zero_grad()` after it: one of the two runs every iteration."""
    for other in ctx.within(ast.Call, block):
        if other is zero or not (isinstance(other.func, ast.Attribute) and other.func.attr == "zero_grad"
                                 and keys(other.func.value, ctx) & names):
            continue
        if_ = next((a for a in ctx.ancestors(other) if isinstance(a, ast.If)), None)
        if if_ is None or if_ is branch or block not in ctx.ancestors(if_):
            continue
        in_body = any(a in if_.body for a in (other, *ctx.ancestors(other)))
        if in_body and (_negates(if_.test, branch.test) or _negates(branch.test, if_.test)):
            return True
    return False


def _negates(test: ast.expr, other: ast.expr) -> bool:
    """`not x` against `x`."""
    return isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and ast.dump(test.operand) == ast.dump(other)


def never_stepped(ctx: ModuleContext) -> list[tuple[ast.stmt, str]]:
    """(the backward after its zero_grad(), the optimiser) for an optimiser zeroed in a block that
    back-propagates and steps another optimiser, while nothing in this module ever steps it: every use of
    its name is a zero_grad(), its construction, or its state (no `.step()`, not handed to any call)."""
    found = []
    for zero in ctx.by_type.get(ast.Call, ()):
        if not (isinstance(zero.func, ast.Attribute) and zero.func.attr == "zero_grad"):
            continue
        receiver = zero.func.value
        name = dotted(receiver)
        if name is None or not is_optimizer(receiver, ctx) or _holder_steps(receiver, ctx):
            continue
        block = next((a for a in ctx.ancestors(zero) if isinstance(a, LOOPS + FUNCTIONS)), None)
        calls = calls_in_order(block.body) if block is not None else []
        later = calls[calls.index(zero) + 1:] if zero in calls else []
        backward = next((c for c in later if is_backward(c)), None)
        # _only_zeroed last: its table reads every name of the module (all three tests are pure)
        if backward is None or not any(is_optimizer_step(c, ctx) for c in calls) or not _only_zeroed(
                receiver, name, ctx):
            continue
        statement = ctx.enclosing(backward, (ast.stmt,))
        found.append((statement, name))
    return found


def _holder_steps(receiver: ast.AST, ctx: ModuleContext) -> bool:
    """`self.opt.optimizer.zero_grad()` with `self.opt.step()` in the module: the holder (a Noam schedule, a
    wrapper) steps the optimiser it holds."""
    if not isinstance(receiver, ast.Attribute):
        return False
    holder = dotted(receiver.value)
    return holder is not None and any(
        isinstance(c.func, ast.Attribute) and c.func.attr == "step" and dotted(c.func.value) == holder
        for c in ctx.by_type.get(ast.Call, ()))


STATE = {"zero_grad", "state_dict", "load_state_dict", "param_groups", "state", "add_param_group"}


def _where(node: ast.AST, spelled: str, ctx: ModuleContext) -> ast.AST:
    """What a name means within: its function (a local), its class (`self.x`)."""
    if spelled.startswith("self."):
        return ctx.enclosing_class(node) or ctx.tree
    return ctx.scope_of(node)


def _only_zeroed(receiver: ast.AST, name: str, ctx: ModuleContext) -> bool:
    def uses() -> dict[tuple[ast.AST, str], bool]:
        table: dict[tuple[ast.AST, str], bool] = {}
        for node in [*ctx.by_type.get(ast.Name, ()), *ctx.by_type.get(ast.Attribute, ())]:
            if not isinstance(node.ctx, ast.Load):
                continue
            spelled = dotted(node)
            if spelled is None:
                continue
            parent = ctx.parent(node)
            benign = (isinstance(parent, ast.Attribute) and parent.attr in STATE) or (
                isinstance(parent, ast.Attribute) and isinstance(node, ast.Name) and node.id == "self") or (
                isinstance(parent, ast.Call) and node in parent.args and _cannot_step(parent, ctx))
            key = (_where(node, spelled, ctx), spelled)
            table[key] = table.get(key, True) and benign
        return table

    return ctx.memo(("optim_handoff.only_zeroed",), uses).get((_where(receiver, name, ctx), name), False)


def _cannot_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """A call that takes an optimiser without stepping it: a scheduler's construction, or a local helper
    that steps nothing (`adjust_learning_rate(lr, optimizer, epoch)`)."""
    if "sched" in (ctx.call_name(call) or "").lower():
        return True
    return local_callee(call, ctx) is not None and not any(
        isinstance(c.func, ast.Attribute) and c.func.attr == "step" for c in helper_calls(call, ctx))
