import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loops import LOOPS, is_backward
from ..rule import Hit, Rule

GRAD = "torch.autograd.grad_mode."
OFF = {f"{p}{n}" for p in ("torch.", "torch.autograd.", GRAD) for n in ("no_grad", "inference_mode")}
ON = {f"{p}enable_grad" for p in ("torch.", "torch.autograd.", GRAD)}
SET = {f"{p}set_grad_enabled" for p in ("torch.", "torch.autograd.", GRAD)}
REDUCTIONS = {"mean", "sum", "float", "double", "squeeze", "reshape", "view", "to", "cuda"}
BINDINGS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)


class BackwardUnderNoGrad(Rule):
    """What it does: flags backward() on a loss computed while gradients were disabled: the loss
    expression is evaluated inside `with torch.no_grad()` / `torch.inference_mode()` /
    `torch.set_grad_enabled(False)` (or a function decorated with them), or the loss variable was
    last assigned inside such a block that always runs before the backward.

    Why is this bad: nothing computed in that block is recorded by autograd, so the loss has no
    path back to the weights. backward() raises, and the usual "fix" (`loss.requires_grad = True`)
    makes it run silently while no parameter receives a gradient. A loss computed outside the
    block and only backpropagated inside it is fine and is not flagged.
    """

    code = "MLD016"
    name = "backward-under-no-grad"
    category = "autograd"
    severity = "warning"  # loud as written (backward() raises); silent only once "fixed" with requires_grad
    message = "backward() on a loss computed with gradients disabled (no_grad/inference_mode, line {line})"
    why = "Operations under no_grad are not recorded, so the loss has no graph back to the parameters."
    fix = "Compute the training loss outside no_grad/inference_mode (or under enable_grad()); keep no_grad for eval."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    call_names = frozenset({"backward"})  # is_backward
    requires_text = ('backward',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "def step(model, opt, x, y, loss_fn):\n"
        "    opt.zero_grad()\n"
        "    with torch.no_grad():\n"
        "        loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    GOOD = BAD.replace("    with torch.no_grad():\n        loss", "    loss")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not is_backward(node) or not _disables_somewhere(ctx):
            return
        loss = node.args[0] if ctx.call_name(node) == "torch.autograd.backward" and node.args else node.func.value
        region = _disabled_region(node, ctx)
        if region is not None and not isinstance(_unwrap(loss), ast.Name):
            yield Hit(node, self.message.format(line=region.lineno))  # computed right here
            return
        name = _loss_name(loss)
        binding = _last_binding(name, node, ctx) if name else None
        if not isinstance(binding, ast.Assign | ast.AnnAssign) or _harmless(binding.value):
            return  # parameters, loop targets, `loss += other`, constants: cannot tell
        region = _disabled_region(binding, ctx)
        if region is not None and _dominates(binding, node, ctx):
            yield Hit(node, self.message.format(line=region.lineno))


def _unwrap(expr: ast.AST) -> ast.AST:
    while isinstance(expr, ast.Attribute | ast.Subscript):
        expr = expr.value
    return expr


def _loss_name(expr: ast.AST) -> str | None:
    """The variable holding the loss: `loss`, `out.loss`, `loss.mean()`, `scaler.scale(loss / k)`."""
    expr = _unwrap(expr)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div | ast.Mult):
        return _loss_name(expr.left)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr == "scale" and expr.args:
            return _loss_name(expr.args[0])
        return _loss_name(expr.func.value) if expr.func.attr in REDUCTIONS else None
    return expr.id if isinstance(expr, ast.Name) else None


def _mode(expr: ast.AST, ctx: ModuleContext) -> str | None:
    """'off', 'on' or 'unknown' for a grad-mode context manager or decorator; None otherwise."""
    call = expr if isinstance(expr, ast.Call) else None
    name = ctx.qualname(call.func if call else expr)
    flag = (call.args + [k.value for k in call.keywords if k.arg in {"mode", "enabled"}])[:1] if call else []
    constant = flag[0].value if flag and isinstance(flag[0], ast.Constant) else None
    if name in OFF:  # inference_mode(False) turns inference mode off again
        return "on" if constant is False else "off"
    if name in SET and call is not None:
        return "unknown" if not flag or not isinstance(flag[0], ast.Constant) else "on" if constant else "off"
    return "on" if name in ON else None


def _disables_somewhere(ctx: ModuleContext) -> bool:
    """Cheap pre-check before any dataflow: the module turns gradients off somewhere."""
    return ctx.memo(("mld016", "disables"), lambda: _scan_disables(ctx))


def _scan_disables(ctx: ModuleContext) -> bool:
    managers = [i.context_expr for k in (ast.With, ast.AsyncWith) for w in ctx.by_type.get(k, ()) for i in w.items]
    managers += [d for k in (ast.FunctionDef, ast.AsyncFunctionDef) for f in ctx.by_type.get(k, ())
                 for d in f.decorator_list]
    return any(_mode(e, ctx) == "off" for e in managers)


def _disabled_region(node: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """The with-block or decorated function that disables gradients around `node`, if any."""
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.With | ast.AsyncWith):
            modes = [m for m in (_mode(i.context_expr, ctx) for i in reversed(ancestor.items)) if m]
            if modes:  # the innermost grad-mode manager wins; 'unknown' (set_grad_enabled(flag)) is quiet
                return ancestor if modes[0] == "off" else None
        elif isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            return ancestor if any(_mode(d, ctx) == "off" for d in ancestor.decorator_list) else None
        elif isinstance(ancestor, ast.Lambda | ast.ClassDef):
            return None
    return None


def _bound_names(node: ast.AST) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else (
        [i.optional_vars for i in node.items] if isinstance(node, ast.With | ast.AsyncWith) else [node.target])
    # Store names only: `loss.requires_grad = True` does not rebind `loss`
    return {n.id for t in targets if t is not None for n in ast.walk(t)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _last_binding(name: str, call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The binding of `name` latest in source order before `call`, in the same function."""
    scope = ctx.scope_of(call)
    # an assignment around the call binds after it; a loop or with around it binds before
    around = {a for a in ctx.ancestors(call) if not isinstance(a, LOOPS + (ast.With, ast.AsyncWith))}
    before = [b for b in ctx.in_scope(scope, BINDINGS)
              if (b.lineno, b.col_offset) < (call.lineno, call.col_offset) and b not in around
              and (not isinstance(b, ast.AnnAssign) or b.value is not None)
              and name in _bound_names(b)
              # `loss = loss.requires_grad_()` makes a graph-less leaf, not a graph: look past it
              and ast.unparse(getattr(b, "value", ast.Pass())) != f"{name}.requires_grad_()"]
    return max(before, key=lambda b: (b.lineno, b.col_offset), default=None)


def _harmless(value: ast.AST) -> bool:
    # a constant, or torch.zeros(..., requires_grad=True): a leaf that wants grad even under no_grad
    return isinstance(value, ast.Constant) or any(
        isinstance(n, ast.keyword) and n.arg == "requires_grad" for n in ast.walk(value))


def _dominates(binding: ast.AST, call: ast.Call, ctx: ModuleContext) -> bool:
    """The binding always runs before the call: it sits earlier in the block that holds the call,
    reached from there only through with-blocks and try bodies, never through an if or a loop."""
    path = [call, *ctx.ancestors(call)]
    current = binding
    while (parent := ctx.parent(current)) is not None:
        if parent in path:
            child = path[path.index(parent) - 1]
            blocks = [getattr(parent, f, None) for f in ("body", "orelse", "finalbody")]
            block = next((b for b in blocks if isinstance(b, list) and current in b and child in b), None)
            return block is not None and block.index(current) < block.index(child)
        plain = isinstance(parent, ast.With | ast.AsyncWith) or (isinstance(parent, ast.Try) and current in parent.body)
        if not plain:
            return False
        current = parent
    return False
