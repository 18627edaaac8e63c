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
HF_TRAIN_HOOK = re.compile(r"^on_(step|substep|epoch)_(end|begin)$")
# methods of a LightningModule that are no forward of the network
NOT_FORWARD = {"log", "log_dict", "print", "to", "cpu", "cuda", "parameters", "named_parameters", "state_dict",
               "save_hyperparameters", "all_gather", "modules", "children", "train", "eval", "zero_grad",
               "optimizers", "lr_schedulers", "toggle_optimizer", "untoggle_optimizer", "type", "float", "half"}

HOLDERS = {"trainer", "logger", "hparams", "device", "metrics"}  # what a module holds that is no network


def train_hook_forwards(ctx: ModuleContext) -> Iterator[tuple[ast.AST, str, str]]:
    """(the hook's statement that holds the first such forward, the module's key, the hook's name) for each
    training-phase hook of a Lightning callback or module, or of a transformers TrainerCallback, that keeps a
    forward's output under no_grad and switches no mode."""
    if not any(map(ctx.has_text, ("on_train_", "training_epoch_end", "TrainerCallback"))):
        return  # most files define no such hook
    for kind in FUNCS:
        for func in ctx.by_type.get(kind, ()):
            if not (TRAIN_HOOK.match(func.name) or HF_TRAIN_HOOK.match(func.name)):
                continue
            modules = _modules_of(func, ctx)
            if not modules or any(s.mode in (EVAL, SET) for s in switches(func, ctx)):
                continue
            call, where = _kept_forward(func, modules, ctx), func
            if call is None:  # a method of the class the hook calls (`self._log_samples(pl_module)`)
                call, where = _helper_forward(func, modules, ctx)
            if call is not None:
                yield _fix_place(call, where, ctx), (key_of(call.func) or "").split(".")[0], func.name


def _kept_forward(func: ast.AST, modules: set[str], ctx: ModuleContext) -> ast.Call | None:
    return next((c for c in scope_calls(func, ctx) if _forward_of(c, modules)
                 and not isinstance(ctx.parent(c), ast.Expr) and grad_off_at(c, func, ctx)), None)


def _helper_forward(func: ast.AST, modules: set[str], ctx: ModuleContext) -> tuple[ast.Call | None, ast.AST]:
    """(the kept forward, the method) in a method of the hook's class that the hook calls, handing it the module
    (in a LightningModule, any of its methods), when that method switches no mode."""
    cls = ctx.parent(func)
    methods = {m.name: m for m in cls.body if isinstance(m, FUNCS)}
    for call in scope_calls(func, ctx):
        target = call.func
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "self" and target.attr in methods) or methods[target.attr] is func:
            continue
        helper = methods[target.attr]
        params = [a.arg for a in helper.args.args][1:]
        inner = {"self"} & modules
        inner |= {params[i] for i, a in enumerate(call.args[:len(params)]) if isinstance(a, ast.Name) and a.id in modules}
        inner |= {k.arg for k in call.keywords if k.arg and isinstance(k.value, ast.Name) and k.value.id in modules}
        if inner and not any(s.mode in (EVAL, SET) for s in switches(helper, ctx)):
            found = _kept_forward(helper, inner, ctx)
            if found is not None:
                return found, helper
    return None, func


def _fix_place(call: ast.Call, func: ast.AST, ctx: ModuleContext) -> ast.AST:
    """The outermost `with torch.no_grad():` around the forward in the hook (eval() goes right above it), else
    the statement that holds the forward."""
    found = None
    for node in ctx.ancestors(call):
        if node is func:
            break
        block = isinstance(node, ast.With | ast.AsyncWith)
        grad_off = block and any(no_grad_expr(i.context_expr, ctx) for i in node.items)
        if grad_off or (found is None and isinstance(node, ast.stmt) and not block):
            found = node
    return found or call


def _modules_of(func: ast.AST, ctx: ModuleContext) -> set[str]:
    """The names that hold the trained module in the hook: the `pl_module` parameter of a Lightning Callback's
    hook `(self, trainer, pl_module, ...)` and names bound to `trainer.lightning_module`; `self` in a
    LightningModule's own hook; the `model` a transformers TrainerCallback's hook is handed (HF's Trainer runs
    these hooks between training steps, each of which calls model.train())."""
    cls = ctx.parent(func)
    if not isinstance(cls, ast.ClassDef):
        return set()
    bases = {(ctx.qualname(b) or ident(b) or "").rsplit(".", 1)[-1] for b in cls.bases}
    params = [a.arg for a in func.args.args]
    if "Callback" in bases and TRAIN_HOOK.match(func.name):
        found = {params[2]} if len(params) > 2 else set()
        holders = {"lightning_module", "model"}
        trainer = params[1] if len(params) > 1 else None
    elif "LightningModule" in bases and TRAIN_HOOK.match(func.name):
        return {"self"}
    elif "TrainerCallback" in bases and HF_TRAIN_HOOK.match(func.name):
        found = {a.arg for a in [*func.args.args, *func.args.kwonlyargs] if a.arg == "model"}
        holders, trainer = set(), None
    else:
        return set()
    for node in ast.walk(func):  # `module = trainer.lightning_module`, `model = kwargs["model"]`
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Attribute) and value.attr in holders and ident(value.value) == trainer or (
                    _model_keyword(value)):
                found.add(node.targets[0].id)
    return found


def _model_keyword(value: ast.AST) -> bool:
    """`kwargs["model"]` or `kwargs.get("model")`: the model a transformers callback hook is handed."""
    if isinstance(value, ast.Subscript):
        key = value.slice
    elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get" and value.args:
        key = value.args[0]
    else:
        return False
    return isinstance(key, ast.Constant) and key.value == "model"


def _forward_of(call: ast.Call, modules: set[str]) -> bool:
    """`pl_module(x)`, `pl_module.decode(z)`, `pl_module.generator(z)`, `self(z)`, `self.decoder(z)`: the module
    or one of its networks run on inputs (not a logging or bookkeeping method)."""
    func = call.func
    if not (call.args or call.keywords):
        return False
    if isinstance(func, ast.Name):
        return func.id in modules
    key = key_of(func) or ""
    parts = key.split(".")
    return len(parts) in (2, 3) and parts[0] in modules and parts[1] not in HOLDERS and parts[-1] not in NOT_FORWARD \
        and not parts[-1].startswith(("log", "_log", "save", "get_", "configure"))
