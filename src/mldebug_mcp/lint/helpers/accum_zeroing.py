"""zero_grad() calls that run on every micro-batch while the optimiser steps only every k of them.

Gradient accumulation sums several backwards into .grad and steps once; a zero_grad() that runs on each
micro-batch throws the sum away, so every step sees only the last micro-batch. The shapes real code has:

- a batch loop that steps under an accumulation test (`if (i + 1) % k == 0`, `if accelerator.sync_gradients`)
  and zeroes unconditionally;
- `with accelerator.accumulate(model):` (or DDP's `with model.no_sync():`) around a module's zero_grad():
  accelerate skips only the prepared optimiser's zero_grad until the sync step, not the model's;
- an inner micro-batch loop that zeroes and backwards on each pass, followed by the step;
- a method that zeroes and backwards (`forward_backward`) while another method of its class steps.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .loops import LOOPS, calls_in_order, is_backward, is_zero_grad
from .optim_steps import FUNCTIONS, call_sites, iteration, local_callee, unconditional_in
from .optim_values import optimizer_step
from .optim_zeroing import cleared, is_optimizer, stepped_optimizer

# `is_update_step`, `should_step`: a test named for the step that ends an accumulation window (OneTrainer)
ACCUMULATION_WORDS = ("accum", "sync_gradients", "update_freq", "grad_steps", "gradient_steps", "micro", "update_step",
                      "should_step")


def accumulation_test(test: ast.expr, ctx: ModuleContext, depth: int = 2) -> bool:
    """A step condition that reads as 'every k micro-batches': a modulo on a counter, or a name that
    says accumulation (`accum_steps`, `accelerator.sync_gradients`), also through a flag assigned one."""
    for sub in ast.walk(test):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mod) and not isinstance(sub.left, ast.Constant):
            return True
        if isinstance(sub, ast.Name | ast.Attribute):
            spelled = (sub.id if isinstance(sub, ast.Name) else sub.attr).lower()
            if any(word in spelled for word in ACCUMULATION_WORDS):
                return True
            if depth and isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                value = ctx.resolve(sub)
                if value is not sub and isinstance(value, ast.expr) and accumulation_test(value, ctx, depth - 1):
                    return True
    return False


def _step_guard(step: ast.Call, loop: ast.AST, ctx: ModuleContext) -> ast.If | None:
    """The `if` inside `loop` whose accumulation test guards this step."""
    for ancestor in ctx.ancestors(step):
        if ancestor is loop:
            return None
        if isinstance(ancestor, ast.If) and accumulation_test(ancestor.test, ctx):
            return ancestor
    return None


def _inside(node: ast.AST, block: ast.AST, ctx: ModuleContext) -> bool:
    return block in ctx.ancestors(node)


def _guarded_steps(zero: ast.Call, ctx: ModuleContext):
    """(iteration, its steps, their accumulation guards) when `zero` runs on every pass of a loop (or every call
    of a per-batch function) whose steps all run under an accumulation test; else None."""
    loop = ctx.enclosing(zero, LOOPS + FUNCTIONS)
    if loop is None or not unconditional_in(zero, loop, ctx):
        return None
    it = iteration(loop, ctx)
    direct_steps = [s for s, via in it.steps if s is via and ctx.enclosing(s, LOOPS + FUNCTIONS) is loop]
    if not direct_steps or any(unconditional_in(s, loop, ctx) for s in direct_steps):
        return None
    guards = [_step_guard(s, loop, ctx) for s in direct_steps]
    return None if any(g is None for g in guards) else (it, direct_steps, guards)


def in_conditional_step_loop(zero: ast.Call, ctx: ModuleContext) -> bool:
    """`zero` runs on every pass of a loop that backwards on every pass and steps under an accumulation test,
    or on every call of a per-batch function that does (`training_step` counting its own micro-batches)."""
    found = _guarded_steps(zero, ctx)
    if found is None:
        return False
    it, direct_steps, guards = found
    # a backward outside the step's branch: it runs on the micro-batches that do not step
    if not any(not any(_inside(via, g, ctx) for g in guards) for _, via in _backwards(it)):
        return False
    return _clears_stepped(zero, direct_steps, ctx)


def backward_only_when_stepping(zero: ast.Call, ctx: ModuleContext) -> bool:
    """`zero` runs on every micro-batch, the loss is divided by the accumulation count k, but the backward sits
    under the step's own test `(i + 1) % k == 0` with the step: the k - 1 micro-batches between are computed and
    dropped, and each step sees one micro-batch scaled down by k."""
    found = _guarded_steps(zero, ctx)
    if found is None:
        return False
    it, direct_steps, guards = found
    backwards = _backwards(it)
    if not backwards or not all(any(_inside(via, g, ctx) for g in guards) for _, via in backwards):
        return False
    counts = {ast.dump(sub.right) for g in guards for sub in ast.walk(g.test)
              if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mod)}
    loop = ctx.enclosing(zero, LOOPS + FUNCTIONS)
    divided = any(isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Div) and ast.dump(sub.right) in counts
                  and not any(_inside(sub, g, ctx) for g in guards) for sub in ast.walk(loop))
    return divided and _clears_stepped(zero, direct_steps, ctx)


def _backwards(it) -> list[tuple[ast.Call, ast.Call]]:
    """The iteration's backwards, Lightning's `self.manual_backward(loss)` among them."""
    manual = [(c, via) for c, via in it.calls if isinstance(c.func, ast.Attribute) and c.func.attr == "manual_backward"]
    return it.backwards + manual


def _clears_stepped(zero: ast.Call, steps: list[ast.Call], ctx: ModuleContext) -> bool:
    optimizers = [stepped_optimizer(s) for s in steps]
    return any(o is None or cleared([zero], o, ctx) for o in optimizers)


def in_accumulating_context(zero: ast.Call, ctx: ModuleContext) -> bool:
    """`with accelerator.accumulate(model):` around a module's zero_grad (the prepared optimiser's own
    zero_grad is skipped until the sync step, a module's is not), or `with ddp.no_sync():` around any."""
    for ancestor in ctx.ancestors(zero):
        if isinstance(ancestor, FUNCTIONS):
            return False
        if not isinstance(ancestor, ast.With | ast.AsyncWith):
            continue
        for item in ancestor.items:
            expr = item.context_expr
            method = ctx.method_name(expr) if isinstance(expr, ast.Call) else None
            if method == "no_sync":
                return True
            if method == "accumulate" and not is_optimizer(zero.func.value, ctx):
                return True
    return False


def in_micro_batch_loop(zero: ast.Call, ctx: ModuleContext) -> bool:
    """`zero` runs on each pass of an inner loop that backwards but never steps, and the step follows that
    loop: `for micro in chunks: opt.zero_grad(); loss.backward()` then `opt.step()`. A loop that reads
    the gradients after each backward (per-task gradients, PCGrad) is collecting them on purpose."""
    loop = ctx.enclosing(zero, LOOPS + FUNCTIONS)
    if not isinstance(loop, LOOPS) or not unconditional_in(zero, loop, ctx) or _retry_loop(loop):
        return False
    it = iteration(loop, ctx)
    if it.steps or not it.backwards or _reads_gradients(loop):
        return False
    outer = ctx.enclosing(loop, LOOPS + FUNCTIONS)
    if outer is None:
        return False
    # the step after the loop, on every call or every k-th (`if not self.is_grad_accumulation_step:`, ai-toolkit)
    after = [c for c in calls_in_order(outer.body) if c.lineno > loop.end_lineno and optimizer_step(c, ctx)
             and (unconditional_in(c, outer, ctx) or _step_guard(c, outer, ctx) is not None)]
    # the zero_grad before the backward, every pass: the step after the loop sees only the last micro-batch
    # (a backward in a helper counts where the loop calls it: `loss = self.train_single_accumulation(batch)`)
    return (bool(after) and any(via.lineno > zero.lineno for _, via in it.backwards)
            and _clears_stepped(zero, after, ctx))


def _retry_loop(loop: ast.AST) -> bool:
    """`while chunk_size: try: ...backward per chunk... except OOM: chunk_size //= 2 else: break`: a pass that
    succeeds leaves the loop, so each pass starts the whole batch again and its zero_grad() clears only a failed
    attempt (tabular-dl-revisiting-models' automatic virtual batches, blind split 14)."""
    return any(isinstance(stmt, ast.Try) and stmt.handlers and any(isinstance(s, ast.Break) for s in stmt.orelse)
               for stmt in loop.body)


def _reads_gradients(loop: ast.AST) -> bool:
    for node in ast.walk(loop):
        if isinstance(node, ast.Attribute) and node.attr in {"grad", "grads"} and isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name):
            name = (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id).lower()
            if "grad" in name and not is_zero_grad(node) and not is_backward(node) and "clip" not in name:
                return True
    return False


def in_backward_only_method(zero: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """`zero` runs before a backward in a method that never steps, while another method of the same class
    steps an optimiser it clears and never zeroes: the backward method is the micro-batch half of an
    accumulating trainer (`forward_backward` then `optim_step`). Returns that stepping method."""
    function = ctx.enclosing(zero, FUNCTIONS)
    cls = ctx.enclosing_class(zero)
    if function is None or cls is None or function not in cls.body or ctx.enclosing(zero, LOOPS + FUNCTIONS) is not function:
        return None  # a closure (LBFGS) zeroes for the step that calls it
    if not unconditional_in(zero, function, ctx):
        return None
    own = calls_in_order(function.body)
    calls = own + [inner for c in own for inner in _helper_calls(c, ctx)]
    if any(optimizer_step(c, ctx) for c in calls):
        return None
    if not any(is_backward(c) and c.lineno > zero.lineno for c in own):
        return None
    for method in cls.body:
        if not isinstance(method, FUNCTIONS) or method is function:
            continue
        own = calls_in_order(method.body)
        steps = [c for c in own if optimizer_step(c, ctx) and stepped_optimizer(c) is not None]  # not LBFGS
        if steps and not any(is_zero_grad(c) or is_backward(c) for c in own) and _clears_stepped(zero, steps, ctx):
            return method
    return None


def _helper_calls(call: ast.Call, ctx: ModuleContext) -> Iterator[ast.Call]:
    helper = local_callee(call, ctx)
    if helper is not None and helper not in ctx.ancestors(call):
        yield from calls_in_order(helper.body)


MICRO_WORDS = ("chunk", "split", "micro", "accum")


def _steps_next(loop: ast.AST, ctx: ModuleContext) -> bool:
    """An optimiser step among the statements that follow the loop in its own block (`if batch is not None:
    for j in range(0, n, micro): ... loss.backward()` then `opt.step()` in the same if-body)."""
    parent = ctx.parent(loop)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and loop in block:
            after = block[block.index(loop) + 1:]
            return any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and optimizer_step(s.value, ctx)
                       for s in after)
    return False


def _steps_after(node: ast.AST, outer: ast.AST, ctx: ModuleContext) -> bool:
    """`outer` (the loop or function running `node`) steps an optimiser unconditionally after `node`, or a step
    follows `node`'s statement in its own block."""
    statement = next((a for a in (node, *ctx.ancestors(node)) if isinstance(a, ast.stmt)), None)
    return any(optimizer_step(c, ctx) and c.lineno > node.end_lineno and unconditional_in(c, outer, ctx)
               for c in calls_in_order(outer.body)) or (statement is not None and _steps_next(statement, ctx))


def _caller_steps_after(function: ast.AST, ctx: ModuleContext) -> bool:
    """The micro-batch loop is a helper's (`def forward_backward(model, micro_batches):`), the helper never
    steps, and every caller of this file steps the optimiser right after calling it (issue 17)."""
    if not isinstance(function, FUNCTIONS) or any(
            optimizer_step(c, ctx) for c in calls_in_order(function.body)):
        return False
    sites = call_sites(function, ctx)
    return bool(sites) and all(_steps_after_call(site, ctx) for site in sites)


def _steps_after_call(site: ast.Call, ctx: ModuleContext) -> bool:
    outer = ctx.enclosing(site, LOOPS + FUNCTIONS)
    return outer is not None and _steps_after(site, outer, ctx)


def _strides_a_length(source: ast.expr) -> bool:
    """`range(0, len(batch), k)`: slices of one batch, whatever the stride is called."""
    return (isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "range"
            and len(source.args) == 3 and isinstance(source.args[1], ast.Call)
            and isinstance(source.args[1].func, ast.Name) and source.args[1].func.id == "len")


def _draws_each_pass(loop: ast.For | ast.AsyncFor) -> bool:
    """`for _ in range(k): batch = next(batches)`: each pass takes a new batch, whatever k is called."""
    source = loop.iter
    return (isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "range"
            and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "next"
                    for s in loop.body for n in ast.walk(s)))


def micro_batch_loop(loop: ast.AST, ctx: ModuleContext) -> ast.expr | None:
    """The count of an inner loop over the micro-batches of one step (`for xb in x.chunk(k)`,
    `for micro in range(accum_steps)`): it backwards on every pass, never steps, and the optimiser steps
    right after it. Returns the micro-batch count expression (or the iterable)."""
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return None
    spelled = ast.unparse(loop.iter).lower()
    if not any(word in spelled for word in MICRO_WORDS) and not _strides_a_length(loop.iter) \
            and not _draws_each_pass(loop):
        return None
    calls = [c for c in calls_in_order(loop.body) if ctx.enclosing(c, LOOPS + FUNCTIONS) is loop]
    if any(optimizer_step(c, ctx) for c in calls) or not any(
            is_backward(c) and unconditional_in(c, loop, ctx) for c in calls):
        return None
    outer = ctx.enclosing(loop, LOOPS + FUNCTIONS)
    if outer is None:
        return None
    if not _steps_after(loop, outer, ctx) and not _caller_steps_after(outer, ctx):
        return None
    counted = [a for c in ast.walk(loop.iter) if isinstance(c, ast.Call) for a in c.args]
    return counted[-1] if counted else loop.iter
