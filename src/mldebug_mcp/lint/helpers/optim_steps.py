"""The calls one training iteration makes, seen through the local helpers it calls.

A loop body `self.train_step(batch)` runs the backward and the step of `train_step`; the rules about
zeroing gradients need those calls as if they were written in the loop. Helpers are followed when they
are defined in this module: a nested or module-level function, a method of the enclosing class (or of a
local base class), a method of an object built from a local class. Calls are yielded in source order,
a helper's calls at the place it is called.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .loops import (
    LOOPS,
    calls_in_order,
    is_backward,
    is_zero_grad,
    sets_grad_to_none,
)
from .optim_values import bare_step, optimizer_step

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
DEPTH = 3  # helpers of helpers of helpers


def function_named(name: ast.Name, ctx: ModuleContext) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def a bare name refers to: one nested in an enclosing function (innermost first), else the module's.
    Memoised per scope and name (the enclosing functions are those of the scope): asked for every call of every
    block expanded, it walked all ancestors each time (a 400-branch elif chain took 40 s)."""
    return ctx.memo(("optim_steps.function_named", ctx.scope_of(name), name.id),
                    lambda: _function_named(name, ctx))


def _function_named(name: ast.Name, ctx: ModuleContext) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for scope in ctx.ancestors(name):
        if isinstance(scope, FUNCTIONS):
            nested = next((n for n in scope.body if isinstance(n, FUNCTIONS) and n.name == name.id), None)
            if nested is not None:
                return nested
    return ctx.functions.get(name.id)


def local_callee(call: ast.Call, ctx: ModuleContext) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function of this module a call runs, when that is certain enough to read it as inlined."""
    func = call.func
    if isinstance(func, ast.Name):
        return function_named(func, ctx)
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id == "self":
        cls = ctx.enclosing_class(call)
    else:
        built = ctx.constructed(receiver)
        cls = ctx.classes.get(built) if built else None
    return _method(cls, func.attr, ctx, DEPTH) if cls is not None else None


def _method(cls: ast.ClassDef, name: str, ctx: ModuleContext, depth: int):
    found = next((n for n in cls.body if isinstance(n, FUNCTIONS) and n.name == name), None)
    if found is not None or depth == 0:
        return found
    for base in cls.bases:  # a local base class
        base_cls = ctx.classes.get(base.id) if isinstance(base, ast.Name) else None
        if base_cls is not None and base_cls is not cls:
            found = _method(base_cls, name, ctx, depth - 1)
            if found is not None:
                return found
    return None


def expanded_calls(body: list[ast.stmt], ctx: ModuleContext, depth: int = DEPTH) -> Iterator[tuple[ast.Call, ast.Call]]:
    """(call, the call of `body` that runs it): each call of the block, and the calls of each local
    helper it calls, at that place (the second item is the call itself when it is in `body`)."""
    for call in calls_in_order(body):
        yield call, call
        if depth > 0:
            for inner in helper_calls(call, ctx, depth):
                yield inner, call


def helper_calls(call: ast.Call, ctx: ModuleContext, depth: int = DEPTH) -> list[ast.Call]:
    """The calls a local helper makes (through its own helpers), memoised per helper."""
    helper = local_callee(call, ctx)
    if helper is None or helper in ctx.ancestors(call):  # recursion: the helper is already running
        return []
    key = ("optim_steps.helper_calls", helper, depth)
    running = ctx.memo(("optim_steps.running",), set)
    if key in running:
        return []
    running.add(key)
    try:
        return ctx.memo(key, lambda: [c for c, _ in expanded_calls(helper.body, ctx, depth - 1)])
    finally:
        running.discard(key)


class Iteration:
    """What one loop iteration (or one call of a step function) does with gradients."""

    def __init__(self, node: ast.AST, ctx: ModuleContext) -> None:
        self.node = node
        self.calls = list(expanded_calls(node.body, ctx))
        # torch.distributed.autograd.backward keeps its gradients in the context, not in .grad
        self.backwards = [(c, via) for c, via in self.calls
                          if is_backward(c) and not (ctx.call_name(c) or "").startswith("torch.distributed.autograd")]
        self.steps = [(c, via) for c, via in self.calls if optimizer_step(c, ctx)]
        if not self.steps and self.backwards:  # `o.step()` on a parameter nothing else tells about
            after = self.calls[self.calls.index(self.backwards[0]):]
            self.steps = [(c, via) for c, via in after if bare_step(c, ctx)]
        # a helper's `opt.zero_grad()` on what it was handed (`def reset(*opts)`) clears we cannot say what
        handed = [c for c, via in self.calls if is_zero_grad(c) and c is not via and _on_argument(c, ctx)]
        self.zeros = [c for c, _ in self.calls if is_zero_grad(c) and c not in handed]
        # `utils.zero_grads(model)`, `self.reset_grad()`: a helper we cannot read that says it clears
        self.opaque_zeros = handed + [c for c, _ in self.calls if not is_zero_grad(c) and _says_it_clears(c)]
        helpers = {local_callee(c, ctx) for c, via in self.calls if c is via} - {None}
        self.manual = sets_grad_to_none(node.body) or any(sets_grad_to_none(h.body) for h in helpers)

    @property
    def clears(self) -> bool:
        return bool(self.zeros or self.opaque_zeros or self.manual)


def _on_argument(zero: ast.Call, ctx: ModuleContext) -> bool:
    """The receiver is a parameter of the helper it runs in, or a loop variable over one."""
    root = zero.func.value
    while isinstance(root, ast.Attribute | ast.Subscript):
        root = root.value
    function = ctx.enclosing(zero, FUNCTIONS)
    if not isinstance(root, ast.Name) or function is None:
        return False
    arguments = function.args
    names = {a.arg for a in [*arguments.args, *arguments.kwonlyargs, *arguments.posonlyargs,
                             *filter(None, [arguments.vararg, arguments.kwarg])]} - {"self", "cls"}
    for loop in ctx.ancestors(zero):
        if isinstance(loop, ast.For) and root.id in {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}:
            return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(loop.iter))
    return root.id in names


def _says_it_clears(call: ast.Call) -> bool:
    func = call.func
    name = (func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "").lower()
    return "grad" in name and any(word in name for word in ("zero", "reset", "clear"))


def iteration(node: ast.AST, ctx: ModuleContext) -> Iteration:
    return ctx.memo(("optim_steps.iteration", node), lambda: Iteration(node, ctx))


def nested_loops(node: ast.AST, ctx: ModuleContext) -> Iterator[ast.AST]:
    """Loops inside a block or in the local helpers it calls (not the block itself)."""
    for stmt in node.body:
        for inner in ast.walk(stmt):
            if isinstance(inner, LOOPS):
                yield inner
    for call in calls_in_order(node.body):
        helper = local_callee(call, ctx)
        if helper is not None and helper not in ctx.ancestors(call):
            for stmt in helper.body:
                yield from (n for n in ast.walk(stmt) if isinstance(n, LOOPS))


def top_statement(node: ast.AST, block: list[ast.stmt], ctx: ModuleContext) -> ast.stmt | None:
    """The statement of `block` that holds `node`."""
    for candidate in (node, *ctx.ancestors(node)):
        if candidate in block:
            return candidate
    return None


CONDITIONAL = (ast.If, ast.IfExp, ast.BoolOp, ast.ExceptHandler, ast.comprehension, ast.match_case, ast.Lambda,
               *LOOPS, *FUNCTIONS)


def unconditional_in(node: ast.AST, owner: ast.AST, ctx: ModuleContext) -> bool:
    """`node` runs whenever `owner`'s body runs: only with-blocks and try bodies lie between them."""
    child = node
    for ancestor in ctx.ancestors(node):
        if ancestor is owner:
            return True
        if isinstance(ancestor, CONDITIONAL) or (isinstance(ancestor, ast.Try) and child in ancestor.orelse):
            return False
        child = ancestor
    return False


def owner_of(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The loop or function whose body a call runs in."""
    return ctx.enclosing(call, LOOPS + FUNCTIONS)


def call_sites(function: ast.AST, ctx: ModuleContext) -> list[ast.Call]:
    """The calls in this module that run `function` (as local_callee reads them)."""
    def index() -> dict[ast.AST, list[ast.Call]]:
        found: dict[ast.AST, list[ast.Call]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            target = local_callee(call, ctx)
            if target is not None:
                found.setdefault(target, []).append(call)
        return found

    return ctx.memo(("optim_steps.call_sites",), index).get(function, [])


def enclosing_iterations(node: ast.AST, ctx: ModuleContext) -> Iterator[Iteration]:
    """The loops around `node` in its function, then the loops around each call of that function."""
    function = None
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, LOOPS):
            yield iteration(ancestor, ctx)
        elif isinstance(ancestor, FUNCTIONS):
            function = ancestor
            break
    if function is not None:
        for call in call_sites(function, ctx):
            for ancestor in ctx.ancestors(call):
                if isinstance(ancestor, LOOPS):
                    yield iteration(ancestor, ctx)
                elif isinstance(ancestor, FUNCTIONS):
                    break


def training_blocks(ctx: ModuleContext) -> set[ast.AST]:
    """Loops and functions that run a backward, in their own body or through a local helper: the only
    blocks whose iteration is worth expanding (a cheap filter by the helpers' names, computed once)."""
    def collect() -> set[ast.AST]:
        reaching = {f.name for f in ctx.backward_scopes if isinstance(f, FUNCTIONS)}
        if not reaching:  # no function backwards, so no call reaches one: the blocks that backward themselves
            return set(ctx.backward_scopes)
        functions = [f for kind in FUNCTIONS for f in ctx.by_type.get(kind, ())]

        def reaches(call: ast.Call) -> bool:
            if _callee_name(call) in reaching:
                return True
            # `compute_loss(...)` on an instance of a local class whose __call__ runs the backward (asked only
            # once a __call__ reaches one: almost never)
            if "__call__" not in reaching:
                return False
            built = ctx.constructed(call.func) if isinstance(call.func, ast.Name | ast.Attribute) else None
            cls = ctx.classes.get(built) if built else None
            return cls is not None and any(isinstance(n, FUNCTIONS) and n.name == "__call__" for n in cls.body)

        for _ in range(DEPTH):
            grown = {f.name for f in functions if f.name not in reaching
                     and any(reaches(c) for c in ctx.in_scope(f, (ast.Call,)))}
            if not grown:
                break
            reaching |= grown
        blocks = set(ctx.backward_scopes)
        for call in ctx.by_type.get(ast.Call, ()):
            if reaches(call):
                for ancestor in ctx.ancestors(call):
                    if isinstance(ancestor, LOOPS + FUNCTIONS):
                        if ancestor in blocks:
                            break
                        blocks.add(ancestor)
        return blocks

    return ctx.memo(("optim_steps.training_blocks",), collect)


def _callee_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
