"""The train/eval mode of models along a scope (MLD020, MLD021).

A model is named by its receiver key (`model`, `self.model`, `self.ema.module`); a switch is a call that
sets the mode of a key: `.eval()`, `.train(False)`, `.train()`, `.train(mode)` (set, value unknown), a
project's own mode helper (`set_mode(...)`, `with eval_mode(model)`: sets every model), an assignment to
`.training`, or a call of a function of this module whose own last switch of a key is one of those (the
key mapped through its parameters). Order is source order: a linear view of the scope, which is what
the bugs look like (eval() at the top of validation, train() forgotten after it).
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .evaluation import ident, is_eval_call, mode_helper, own_nodes, scope_calls
from .loops import is_optimizer_step
from .modes_handed_models import key_of  # modes.key_of is what most mode helpers import

EVAL, TRAIN, SET = "eval", "train", "set"
# calls that make a model ready where it is used (load weights, move it): model.eval() goes after them
SETUP = {"load_state_dict", "to", "cuda", "cpu", "half", "float", "double", "bfloat16", "load", "share_memory"}
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def related(a: str | None, b: str | None) -> bool:
    """One key is the other or owns it: `model.eval()` switches `model.encoder` too, and a switch of
    `model.encoder` is taken as deliberate mode handling of `model`."""
    if a is None or b is None:
        return True
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


class Switch:
    """A mode change of `key` (None: every model) made by `node` in the scope being read."""

    __slots__ = ("direct", "key", "mode", "node")

    def __init__(self, node: ast.AST, key: str | None, mode: str, direct: bool = True) -> None:
        self.node, self.key, self.mode, self.direct = node, key, mode, direct


def container_key(switch: Switch) -> str | None:
    """`self.modules["model"].eval()` switches something in `self.modules` (a ModuleDict, a dict of modules)."""
    node = switch.node
    func = node.func if isinstance(node, ast.Call) else None
    receiver = func.value if isinstance(func, ast.Attribute) else None
    return key_of(receiver.value) if isinstance(receiver, ast.Subscript) else None


def direct_switch(call: ast.Call) -> tuple[str | None, str] | None:
    """(key, mode) for a call that sets a mode itself."""
    func = call.func
    if is_eval_call(call):
        return key_of(func.value), EVAL
    if isinstance(func, ast.Attribute) and func.attr == "train":
        args = call.args + [k.value for k in call.keywords if k.arg == "mode"]
        if not args or (isinstance(args[0], ast.Constant) and args[0].value is True):
            return key_of(func.value), TRAIN
        return key_of(func.value), SET  # train(mode): restores what a caller had
    if mode_helper(call):
        return None, _named_mode(call)
    return None


# the words a project's own mode setter is handed for evaluation: `self.set_model_mode("eval")`
SETTER_EVAL_WORDS = {"eval", "evaluation", "test", "val", "valid", "validation", "inference", "predict"}


def _named_mode(call: ast.Call) -> str:
    """EVAL when the setter is told an evaluation mode by a constant (an argument or `mode=`), else SET
    (whatever it restores or is told at run time)."""
    said = [*call.args, *(k.value for k in call.keywords if k.arg == "mode")]  # set_mode(model, "eval") too
    return EVAL if any(isinstance(a, ast.Constant) and isinstance(a.value, str)
                       and a.value.lower() in SETTER_EVAL_WORDS for a in said) else SET


def switches(scope: ast.AST, ctx: ModuleContext, depth: int = 2) -> list[Switch]:
    """The mode switches of a scope in source order, local helpers' net effect included."""
    def compute() -> list[Switch]:
        found = []
        for call in scope_calls(scope, ctx):
            direct = direct_switch(call)
            if direct is not None and direct[0] == "self" and local_targets(call, ctx):
                direct = None  # `self.train()` of a trainer class that defines its own train()
            if direct is not None:
                found.append(Switch(call, *direct))
            elif depth > 0:
                found.extend(_helper_switches(call, scope, ctx, depth))
        nodes = own_nodes(scope, ctx) if not isinstance(scope, ast.Module) else [
            *ctx.by_type.get(ast.Assign, ()), *ctx.by_type.get(ast.Expr, ())]
        for node in nodes:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Attribute) and node.value.attr == "eval" \
                    and ctx.scope_of(node) is scope:
                found.append(Switch(node, key_of(node.value.value), SET))  # `model.eval`: reported on its own
            if isinstance(node, ast.Assign) and ctx.scope_of(node) is scope:
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr == "training":
                        found.append(Switch(node, key_of(target.value), SET))
                    elif isinstance(node.value, ast.Call) and key_of(target) and _chained_eval(node.value):
                        found.append(Switch(node, key_of(target), EVAL))  # net = UNet(3, 2).to(dev).eval()
                    elif depth > 0 and isinstance(node.value, ast.Call) and key_of(target):
                        mode = _returned_mode(node.value, scope, ctx, depth)
                        if mode is not None:
                            found.append(Switch(node, key_of(target), mode, direct=False))
        return sorted(found, key=lambda s: position(s.node))

    return ctx.memo(("mode-switches", id(scope), depth), compute)


def _chained_eval(value: ast.Call) -> bool:
    """`.eval()` (or `.train(False)`) in the chain of calls that builds the value: `Net().to(d).eval()`, also under
    typing's `cast(BiQwen2, BiQwen2.from_pretrained(...).eval())` (vidore-benchmark), which returns its value."""
    if isinstance(value, ast.Call) and len(value.args) == 2 and (
            isinstance(value.func, ast.Name) and value.func.id == "cast"
            or isinstance(value.func, ast.Attribute) and value.func.attr == "cast"):
        value = value.args[1]
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr == "eval" and not value.args or value.func.attr == "train" and value.args and (
                isinstance(value.args[0], ast.Constant) and value.args[0].value is False):
            return True
        value = value.func.value
    return False


def _helper_switches(call: ast.Call, scope: ast.AST, ctx: ModuleContext, depth: int) -> list[Switch]:
    """What calling a function of this module leaves behind: its last switch of each key, seen from here."""
    found = []
    for target in local_targets(call, ctx):
        if target is scope:
            continue
        last: dict[str | None, Switch] = {}
        bound = constant_arguments(call, target, ctx)
        for inner in switches(target, ctx, depth - 1):
            if not bound or branch_taken(inner.node, target, bound, ctx):
                last[inner.key] = inner
        for inner in last.values():
            key = _mapped(inner.key, call, target, ctx)
            if key is not None or inner.key is None:
                found.append(Switch(call, key, inner.mode, direct=False))
    return found


def constant_arguments(call: ast.Call, target: ast.AST, ctx: ModuleContext) -> dict[str, object]:
    """The callee's parameters bound to constants by this call (or left at a constant default):
    `self.net_mode(train=True)` -> {'train': True}."""
    args = target.args
    params = [a.arg for a in args.posonlyargs + args.args]
    if isinstance(ctx.parent(target), ast.ClassDef) and params:
        params = params[1:]
    bound: dict[str, object] = {}
    defaults = args.defaults
    for param, default in zip(params[len(params) - len(defaults):], defaults, strict=False):
        if isinstance(default, ast.Constant):
            bound[param] = default.value
    for param, arg in zip(params, call.args, strict=False):
        if isinstance(arg, ast.Starred):
            break
        bound[param] = arg.value if isinstance(arg, ast.Constant) else _UNKNOWN
    for keyword in call.keywords:
        if keyword.arg in params:
            bound[keyword.arg] = keyword.value.value if isinstance(keyword.value, ast.Constant) else _UNKNOWN
    return {k: v for k, v in bound.items() if v is not _UNKNOWN}


_UNKNOWN = object()


def branch_taken(node: ast.AST, target: ast.AST, bound: dict[str, object], ctx: ModuleContext) -> bool:
    """Whether `node` sits, in every `if` on a bound parameter around it in `target`, in the branch the bound
    value takes (`if train: net.train() else: net.eval()` called with train=False: only the eval())."""
    child = node
    for anc in ctx.ancestors(node):
        if anc is target:
            return True
        if isinstance(anc, ast.If):
            value = _test_value(anc.test, bound)
            if value is not None and (child in anc.body) != value:
                return False
        child = anc
    return True


def _test_value(test: ast.expr, bound: dict[str, object]) -> bool | None:
    """`train`, `not train`, `mode == "train"`, `mode != "eval"` evaluated with the bound values; None if unknown."""
    if isinstance(test, ast.Name) and test.id in bound:
        return bool(bound[test.id])
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _test_value(test.operand, bound)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and test.left.id in bound and isinstance(test.comparators[0], ast.Constant):
        same = bound[test.left.id] == test.comparators[0].value
        if isinstance(test.ops[0], ast.Eq | ast.Is):
            return same
        if isinstance(test.ops[0], ast.NotEq | ast.IsNot):
            return not same
    return None


def _returned_mode(call: ast.Call, scope: ast.AST, ctx: ModuleContext, depth: int) -> str | None:
    """The mode of the model a function of this module returns (`model.eval(); return model` in a loader)."""
    for target in local_targets(call, ctx):
        if target is scope:
            continue
        for ret in (n for n in own_nodes(target, ctx) if isinstance(n, ast.Return) and n.value is not None):
            value = ret.value
            while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                value = value.func.value  # return model.to(device).eval()
            key = key_of(value)
            end = (ret.end_lineno, ret.end_col_offset)
            last = [w for w in switches(target, ctx, depth - 1) if w.key == key and position(w.node) < end]
            if key and last:
                return last[-1].mode
    return None


def _mapped(key: str | None, call: ast.Call, target: ast.AST, ctx: ModuleContext) -> str | None:
    """A key of the callee as the caller names it: a parameter becomes the argument passed, `self` the
    receiver of the call; any other name (a global, a closure variable) is the same object."""
    if key is None:
        return None
    root, _, rest = key.partition(".")
    params = [a.arg for a in target.args.posonlyargs + target.args.args]
    method = isinstance(ctx.parent(target), ast.ClassDef)
    suffix = "." + rest if rest else ""
    if method and params and root == params[0]:
        base = key_of(call.func.value) if isinstance(call.func, ast.Attribute) else None
        return base + suffix if base else None
    if root in params:
        index = params.index(root) - (1 if method else 0)
        arg = call.args[index] if 0 <= index < len(call.args) else next(
            (k.value for k in call.keywords if k.arg == root), None)
        base = key_of(arg) if arg is not None else None
        return base + suffix if base else None
    if root in {a.arg for a in target.args.kwonlyargs}:
        return None
    return key


_OPTIMIZER_METHODS = {"step", "zero_grad"}
_OPTIMIZER_RECEIVER = re.compile(r"optim|(^|[._])opt($|[._\d])|sched|scaler")


def local_targets(call: ast.Call, ctx: ModuleContext) -> list[ast.AST]:
    """The functions of this module a call may run: `f()` is the nearest `def f` in the scopes around the
    call (a nested helper first), else the module's; `x.f()` is any class's method `f`."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if not name:
        return []

    def table() -> dict[str, list[ast.AST]]:
        found: dict[str, list[ast.AST]] = {}
        for kind in FUNCS:
            for function in ctx.by_type.get(kind, ()):
                found.setdefault(function.name, []).append(function)
        return found

    candidates = ctx.memo(("modes", "functions"), table).get(name, [])
    if not candidates:
        return []  # most calls: no function of this module has the name
    if isinstance(func, ast.Attribute):
        if ctx.qualname(func) is not None:
            return []  # torch.load(), np.save(): a library's function, not a method of this file
        if name in _OPTIMIZER_METHODS and _OPTIMIZER_RECEIVER.search(ast.unparse(func.value).lower()):
            return []  # `self.optimizer.step()` is torch's, not a trainer's own step() (tsts, blind split 19)
        return [f for f in candidates if isinstance(ctx.parent(f), ast.ClassDef)]
    for scope in [*(a for a in ctx.ancestors(call) if isinstance(a, FUNCS)), ctx.tree]:
        nested = [f for f in candidates if ctx.parent(f) is scope]
        if nested:
            return nested[-1:]
    return []


def mode_before(node: ast.AST, key: str | None, scope: ast.AST, ctx: ModuleContext) -> Switch | None:
    """The last switch of `key` (or of every model) in `scope` before `node`, in source order."""
    where = position(node)
    last = None
    for switch in switches(scope, ctx):
        if position(switch.node) >= where:
            break
        if related(switch.key, key):
            last = switch
    return last


def update_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """An optimizer step, or a call of a callable built from a model's parameters
    (`train_op = get_train_op(params=model.parameters())` then `train_op()`), or a step helper handed the
    optimizer (`strategy.optimizer_step(self.optimizer, model)`, `accelerator_step(opt)`)."""
    if is_optimizer_step(call, ctx):
        return True
    if _steps_an_optimizer(call):
        return True
    if _steps_what_zeroes_grads(call, ctx):
        return True
    if not isinstance(call.func, ast.Name):
        return False
    for value in binding_values(call.func, ctx):
        if isinstance(value, ast.Call) and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "parameters"
            for n in ast.walk(value)
        ):
            return True
    return False


def _steps_what_zeroes_grads(call: ast.Call, ctx: ModuleContext) -> bool:
    """`x.step()` with no argument on what the file also calls zero_grad() on (`opt`, `state["optimizer"]`,
    an optimiser of any name): a scheduler steps but zeroes no gradients, a model zeroes them but has no step()."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "step" and not call.args and not call.keywords):
        return False
    zeroed = ctx.memo(("modes", "zero-grad-receivers"), lambda: {
        ast.unparse(c.func.value) for c in ctx.by_type.get(ast.Call, ())
        if isinstance(c.func, ast.Attribute) and c.func.attr == "zero_grad"})
    return bool(zeroed) and ast.unparse(func.value) in zeroed


def _steps_an_optimizer(call: ast.Call) -> bool:
    """A call named for a step (`optimizer_step`, `step`) whose arguments hold an optimizer by name."""
    name = (ident(call.func) or "").lower()
    if "step" not in name or "sched" in name or not call.args:
        return False
    return any(_optimizer_named(a) for a in call.args)


def _optimizer_named(arg: ast.expr) -> bool:
    name = (ident(arg) or "").lower()
    return name in {"opt", "optim"} or name.endswith(("_opt", "_optim")) or "optimizer" in name or "optimiser" in name


def binding_values(name: ast.Name, ctx: ModuleContext) -> list[ast.expr]:
    """Values assigned to a name in its scope or, failing that, in the scopes around it (closures)."""
    scope = ctx.scope_of(name)
    while True:
        values = ctx.bindings.get(scope, {}).get(name.id)
        if values:
            return values
        if scope is ctx.tree:
            return []
        scope = ctx.scope_of(scope)
