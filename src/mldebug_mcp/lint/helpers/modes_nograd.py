"""Calls that run a whole evaluation pass with autograd on (MLD022).

An evaluation function of this file (it switches a model to eval mode and ends there, or its caller
switched the model it is given to eval mode just before) that runs a model over a loop of batches, with
no no_grad/inference_mode of its own and no use of gradients, is called outside no_grad: every batch
builds a graph and keeps its activations until the output is freed, so evaluation needs far more memory
than it should (the classic "out of memory during validation"). The fix wraps the call, where it stands.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import (
    ident,
    is_eval_call,
    model_call,
    no_grad_expr,
    own_nodes,
    scope_calls,
    under_no_grad,
)
from .modes import EVAL, TRAIN, key_of, local_targets, mode_before, switches
from .modes_evidence import enclosing_loops

GRAD = {"backward", "grad", "requires_grad", "requires_grad_", "retain_grad", "enable_grad", "vjp", "jvp",
        "jacrev", "jacfwd", "jacobian", "hessian"}


def unguarded_evaluation(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The evaluation function `call` runs with autograd on, or None."""
    if not has_eval_call(ctx):
        return None  # both shapes need an eval() somewhere in the file
    scope = ctx.scope_of(call)
    found = next((t for t in local_targets(call, ctx) if t is not scope and _evaluation_of(call, t, scope, ctx)),
                 None)
    if found is None or grad_off_at(call, scope, ctx):
        return None
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and _only_called_without_grad(scope, ctx):
        return None
    return found


def has_eval_call(ctx: ModuleContext) -> bool:
    """Whether any call of the module is an eval() (or train(False)): one pass per module, shared by MLD022's
    applies() and unguarded_evaluation."""
    return ctx.memo(("modes-nograd", "evals"), lambda: any(is_eval_call(c) for c in ctx.by_type.get(ast.Call, ())))


def _evaluation_of(call: ast.Call, target: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    if not _evaluates_with_grad(target, ctx):  # asked first: kept per function, and most run no model in a loop
        return False  # (every test here is pure: the order does not change the answer)
    last = switches(target, ctx)
    if any(s.mode == TRAIN and s.direct for s in last) or any(
            isinstance(n, ast.Call) and ident(n.func) == "zero_grad" for n in own_nodes(target, ctx)):
        return False  # train_one_epoch() puts the model in training mode itself, or zeroes gradients
    if not (last and last[-1].mode == EVAL and last[-1].direct):  # validate() puts the model in eval mode itself
        passed = [key_of(a) for a in [*call.args, *(k.value for k in call.keywords)]]
        before = [mode_before(call, k, scope, ctx) for k in passed if k]
        if not any(s is not None and s.mode == EVAL and s.key is not None for s in before):
            return False  # nor did the caller: model.eval(); run_epoch(model, valid_data)
    return True


def _evaluates_with_grad(func: ast.AST, ctx: ModuleContext) -> bool:
    """A model forward inside a loop, and nothing that turns grad off or needs it."""
    def compute() -> bool:
        if disables_grad(func, ctx):
            return False
        nodes = list(own_nodes(func, ctx))
        if any(_grad_word(n) for n in nodes):
            return False  # saliency, attacks, test-time training; volatile=True
        forwards = [n for n in nodes if isinstance(n, ast.Call) and model_call(n, ctx)]
        models = {key_of(f.func.value if isinstance(f.func, ast.Attribute) and f.func.attr == "forward" else f.func)
                  for f in forwards} - {None}
        handed = any(isinstance(n, ast.Call) and any(key_of(a) in models for a in [*n.args, *(
            k.value for k in n.keywords)]) for n in nodes)
        # the model handed to another function (an attack, an explainer) that may need its gradients
        return not handed and any(enclosing_loops(f, func, ctx) for f in forwards)
    return ctx.memo(("modes-nograd", id(func)), compute)


def _grad_word(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in GRAD or node.attr == "step"  # optimizer.step(): it trains
    if isinstance(node, ast.Name):
        return node.id in GRAD
    # Variable(x, volatile=True): how grad was turned off before torch 0.4 (legacy code meant no_grad)
    return isinstance(node, ast.keyword) and node.arg in {"requires_grad", "volatile"}


def grad_off_at(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    """Under no_grad/inference_mode (written around it or on a def), or after a bare
    torch.set_grad_enabled(False) earlier in the scope."""
    if under_no_grad(node, ctx):
        return True
    return any(isinstance(ctx.parent(c), ast.Expr) and (ctx.call_name(c) or "").endswith("set_grad_enabled")
               and no_grad_expr(c, ctx) and c.lineno < node.lineno for c in scope_calls(scope, ctx))


def disables_grad(func: ast.AST, ctx: ModuleContext) -> bool:
    """A function decorated with no_grad, or with a no_grad/inference_mode block or switch of its own."""
    if any(no_grad_expr(d, ctx) for d in func.decorator_list):
        return True
    for node in own_nodes(func, ctx):
        if isinstance(node, ast.With | ast.AsyncWith) and any(no_grad_expr(i.context_expr, ctx) for i in node.items):
            return True
        if isinstance(node, ast.Call) and (ctx.call_name(node) or "").endswith("set_grad_enabled") \
                and no_grad_expr(node, ctx):
            return True
    return False


def _only_called_without_grad(func: ast.AST, ctx: ModuleContext) -> bool:
    """Every call of the enclosing function in this file is under no_grad (then so is this call)."""
    sites = [c for c in ctx.by_type.get(ast.Call, ()) if func in local_targets(c, ctx)]
    return bool(sites) and all(under_no_grad(c, ctx) for c in sites)

