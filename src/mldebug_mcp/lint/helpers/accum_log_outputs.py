"""A loss returned for backward together with a logging dict that holds the same live tensor (MLD032).

A criterion or training step that returns `loss, sample_size, logging_output` hands the loss to the
caller's backward() as its own element; the dict is for statistics, which callers sum over workers and
steps into running meters. A loss tensor kept there (instead of `loss.item()`, `loss.detach()`,
`loss.data`) carries its whole autograd graph into every meter that keeps it. Where the dict is the only
thing returned (a Lightning step's `{"loss": loss}`), its loss is the one backwarded, and stays quiet.
"""

from __future__ import annotations

import ast
import re

from .accum_losses import detached, is_loss_value, loss_named
from .graph import depends_on_graph, in_no_grad, latest_value
from .optim_steps import FUNCTIONS

EVALUATING = re.compile(r"val|test|eval|predict|infer")


def logged_loss_copy(node: ast.AST, ctx) -> ast.Name | None:
    """The loss name kept live in a logging dict built by `node` (`log = {"loss": loss, ...}`,
    `log["loss"] = loss`, `log.update(loss=loss)`, `return loss, {"loss": loss}`) when the same function also returns the loss itself."""
    if isinstance(node, ast.Return):
        if not isinstance(node.value, ast.Tuple):
            return None
        dicts = [e for e in node.value.elts if isinstance(e, ast.Dict)]
        entries = [(_key(k), v) for d in dicts for k, v in zip(d.keys, d.values, strict=False)]
        holder = None
    elif isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Dict):
            entries = [(_key(k), v) for k, v in zip(node.value.keys, node.value.values, strict=False)]
            holder = target.id
        elif isinstance(target, ast.Name) and _dict_call(node.value):
            entries, holder = [(k.arg or "", k.value) for k in node.value.keywords], target.id
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            entries, holder = [(_key(target.slice), node.value)], target.value.id
        else:
            return None
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" \
            and isinstance(node.func.value, ast.Name):  # log.update(loss=loss), log.update({"loss": loss})
        entries = [(k.arg or "", k.value) for k in node.keywords] + [
            (_key(k), v) for a in node.args if isinstance(a, ast.Dict) for k, v in zip(a.keys, a.values, strict=False)]
        holder = node.func.value.id
    else:
        return None
    # the entry is named as a loss, or kept under a key that says so (`{"loss": v}`: what readers of the dict use)
    losses = [e for key, e in entries if isinstance(e, ast.Name) and (loss_named(e) or "loss" in key.lower())]
    if not losses:
        return None
    func = ctx.scope_of(node)
    if not isinstance(func, FUNCTIONS) or EVALUATING.search(func.name.lower()) or in_no_grad(node, ctx):
        return None  # a validation step's loss carries no graph where the framework turns gradients off
    for loss in losses:
        if _returned_beside(func, loss.id, holder, node, ctx) and _live(loss, ctx):
            return loss
    return None


def _key(key: ast.AST | None) -> str:
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""


def _dict_call(value: ast.AST) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
        and not value.args


def _returned_beside(func: ast.AST, loss: str, holder: str | None, node: ast.AST, ctx) -> bool:
    """A `return` of this function lists the loss name itself and the dict (`holder`, or the literal in
    `node` when it is that return)."""
    for ret in ctx.in_scope(func, (ast.Return,)):
        if not isinstance(ret.value, ast.Tuple):
            continue
        names = {e.id for e in ret.value.elts if isinstance(e, ast.Name)}
        if loss in names and (ret is node or holder in names):
            return True
    return False


def _live(loss: ast.Name, ctx) -> bool:
    """The name holds a loss computed here, with its graph (a criterion call, or model-derived arithmetic)."""
    value = latest_value(loss, ctx)
    if value is None or detached(value, ctx):
        return False
    return is_loss_value(value, ctx) or depends_on_graph(value, ctx)
