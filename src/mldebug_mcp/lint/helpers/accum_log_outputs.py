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
        if _returned_beside(func, loss.id, holder, node, ctx) and _live(loss, ctx) \
                and not _only_logged_by_framework(func, _dict_position(func, holder, node, ctx), ctx):
            return loss
    return None


FRAMEWORK_LOGS = {"log", "log_dict"}  # Lightning's self.log/self.log_dict detach what they are given


def _dict_position(func: ast.AST, holder: str | None, node: ast.AST, ctx) -> int | None:
    """Where the logging dict sits in the tuple this function returns."""
    for ret in ctx.in_scope(func, (ast.Return,)):
        if isinstance(ret.value, ast.Tuple):
            for position, element in enumerate(ret.value.elts):
                if (ret is node and isinstance(element, ast.Dict)) or (isinstance(element, ast.Name)
                                                                       and element.id == holder):
                    return position
    return None


def _only_logged_by_framework(func: ast.AST, position: int | None, ctx, depth: int = 3) -> bool:
    """Every caller of this method in its class (`self(x)` for forward, `self.shared_step(batch)`) unpacks the
    returned tuple and hands the dict only to `self.log_dict(...)`/`self.log(...)`, or returns it to a caller that
    does (generative-models' DiffusionEngine: forward -> shared_step -> training_step, which logs it)."""
    cls = ctx.enclosing_class(func)
    if cls is None or position is None or depth == 0:
        return False
    callers = [c for c in ast.walk(cls) if isinstance(c, ast.Call) and _calls_method(c, func.name)]
    for call in callers:
        assign, caller = ctx.parent(call), ctx.enclosing(call, FUNCTIONS)
        if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Tuple)
                and len(assign.targets[0].elts) > position and isinstance(assign.targets[0].elts[position], ast.Name)
                and caller is not None):
            return False
        name = assign.targets[0].elts[position].id
        for use in (n for n in ctx.within(ast.Name, caller) if n.id == name and isinstance(n.ctx, ast.Load)):
            parent = ctx.parent(use)
            if _framework_log(parent, use) or _rekeyed_for_the_log(use, ctx):
                continue
            if isinstance(parent, ast.Tuple) and isinstance(ctx.parent(parent), ast.Return) \
                    and _only_logged_by_framework(caller, parent.elts.index(use), ctx, depth - 1):
                continue
            return False
    return bool(callers)


def _framework_log(call: ast.AST, argument: ast.AST) -> bool:
    """`self.log_dict(argument)` / `self.log(..., argument)`: Lightning detaches what it is given."""
    return isinstance(call, ast.Call) and argument in call.args and isinstance(call.func, ast.Attribute) \
        and call.func.attr in FRAMEWORK_LOGS and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"


def _rekeyed_for_the_log(use: ast.Name, ctx) -> bool:
    """`self.log_dict({f"train_{k}": v for k, v in logs.items()})`: the dict re-keyed by a comprehension that goes
    straight to the framework's log (lightning-bolts' VAE)."""
    read = ctx.parent(use)
    call = ctx.parent(read)
    if not (isinstance(read, ast.Attribute) and read.attr in ("items", "values") and isinstance(call, ast.Call)):
        return False
    generator = ctx.parent(call)
    comprehension = ctx.parent(generator)
    return isinstance(generator, ast.comprehension) and generator.iter is call \
        and isinstance(comprehension, ast.DictComp) and _framework_log(ctx.parent(comprehension), comprehension)


def _calls_method(call: ast.Call, name: str) -> bool:
    func = call.func
    if name == "forward" and isinstance(func, ast.Name) and func.id == "self":
        return True
    return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) \
        and func.value.id == "self"


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
