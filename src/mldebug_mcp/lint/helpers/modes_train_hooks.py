"""A Lightning training-phase hook that runs the module under no_grad to log samples (MLD020).

Lightning calls `on_train_epoch_end` / `on_train_batch_end` (of a Callback, or of the LightningModule itself)
with the module in training mode: validation, when it ran, has already put train() back. A hook that
decodes samples or reconstructions there (`recons = pl_module(imgs)` under no_grad, to log a grid) makes them
with dropout on, and BatchNorm updates its running statistics from the logged batch. The hook must call
eval() itself (and train() after). Validation hooks (`on_validation_epoch_end`) run in eval mode: not asked.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from .evaluation import ident, no_grad_expr, scope_calls
from .modes import EVAL, SET, key_of, switches
from .modes_nograd import grad_off_at

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
TRAIN_HOOK = re.compile(r"^on_train_(epoch|batch)_(end|start)$|^training_epoch_end$")
# methods of a LightningModule that are no forward of the network
NOT_FORWARD = {"log", "log_dict", "print", "to", "cpu", "cuda", "parameters", "named_parameters", "state_dict",
               "save_hyperparameters", "all_gather", "modules", "children", "train", "eval", "zero_grad",
               "optimizers", "lr_schedulers", "toggle_optimizer", "untoggle_optimizer", "type", "float", "half"}

HOLDERS = {"trainer", "logger", "hparams", "device", "metrics"}  # what a module holds that is no network


def train_hook_forwards(ctx: ModuleContext) -> Iterator[tuple[ast.AST, str, str]]:
    """(the hook's statement that holds the first such forward, the module's key, the hook's name) for each
    training-phase hook of a Lightning callback or module that keeps a forward's output under no_grad and
    switches no mode."""
    if not (ctx.has_text("on_train_") or ctx.has_text("training_epoch_end")):
        return  # most files define no such hook
    for kind in FUNCS:
        for func in ctx.by_type.get(kind, ()):
            if not TRAIN_HOOK.match(func.name):
                continue
            module = _module_of(func, ctx)
            if module is None or any(s.mode in (EVAL, SET) for s in switches(func, ctx)):
                continue
            call = next((c for c in scope_calls(func, ctx) if _forward_of(c, module)
                         and not isinstance(ctx.parent(c), ast.Expr) and grad_off_at(c, func, ctx)), None)
            if call is not None:
                yield _fix_place(call, func, ctx), module, func.name


def _fix_place(call: ast.Call, func: ast.AST, ctx: ModuleContext) -> ast.AST:
    """The outermost `with torch.no_grad():` around the forward in the hook (eval() goes right above it), else
    the statement that holds the forward."""
    found = None
    for node in ctx.ancestors(call):
        if node is func:
            break
        if isinstance(node, ast.With | ast.AsyncWith) and any(no_grad_expr(i.context_expr, ctx) for i in node.items):
            found = node
        elif found is None and isinstance(node, ast.stmt) and not isinstance(node, ast.With | ast.AsyncWith):
            found = node
    return found or call


def _module_of(func: ast.AST, ctx: ModuleContext) -> str | None:
    """The name that holds the trained module in the hook: the `pl_module` parameter of a Callback's hook
    `(self, trainer, pl_module, ...)`, or `self` in a LightningModule's own hook."""
    cls = ctx.parent(func)
    if not isinstance(cls, ast.ClassDef):
        return None
    bases = [(ctx.qualname(b) or ident(b) or "") for b in cls.bases]
    if any(b.rsplit(".", 1)[-1] == "Callback" for b in bases):
        params = [a.arg for a in func.args.args]
        return params[2] if len(params) > 2 else None
    if any(b.rsplit(".", 1)[-1] == "LightningModule" for b in bases):
        return "self"
    return None


def _forward_of(call: ast.Call, module: str) -> bool:
    """`pl_module(x)`, `pl_module.decode(z)`, `pl_module.generator(z)`, `self(z)`, `self.decoder(z)`: the module
    or one of its networks run on inputs (not a logging or bookkeeping method)."""
    func = call.func
    if not (call.args or call.keywords):
        return False
    if isinstance(func, ast.Name):
        return func.id == module
    key = key_of(func) or ""
    parts = key.split(".")
    return len(parts) in (2, 3) and parts[0] == module and parts[1] not in HOLDERS and parts[-1] not in NOT_FORWARD \
        and not parts[-1].startswith(("log", "_log", "save", "get_", "configure"))
