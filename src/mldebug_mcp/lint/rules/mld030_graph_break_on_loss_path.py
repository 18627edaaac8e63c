import ast
from collections import defaultdict
from collections.abc import Iterator

from ..context import ModuleContext
from ..rule import Hit, Rule

BREAK_METHODS = {"detach", "item", "numpy", "tolist"}
BREAK_FUNCTIONS = {"torch.tensor", "torch.as_tensor", "torch.from_numpy"}
# tensor methods and torch functions whose result still carries the graph of their (first) input
PASS_METHODS = {"mean", "sum", "view", "reshape", "squeeze", "unsqueeze", "flatten", "float", "double", "half",
                "to", "cuda", "cpu", "clone", "contiguous", "abs", "pow", "sqrt", "exp", "log", "clamp", "neg",
                "norm", "requires_grad_", "squeeze_", "nansum", "nanmean"}
PASS_FUNCTIONS = {"torch." + f for f in ("mean", "sum", "stack", "cat", "abs", "square", "sqrt", "exp", "log", "clamp",
                                         "norm", "nansum", "nanmean", "logsumexp")}
LOSS_FUNCTIONS = {"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"}
NO_GRAD = {"torch.no_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.autograd.no_grad",
           "torch.autograd.grad_mode.no_grad"}
MODEL_WORDS = ("model", "net", "encoder", "decoder", "generator", "discriminator", "actor", "critic", "policy",
               "agent", "backbone", "classifier", "teacher", "student")
# methods of a model whose result is not an output carrying its graph
NOT_OUTPUTS = {"eval", "train", "to", "cuda", "cpu", "state_dict", "load_state_dict", "zero_grad", "apply", "modules",
               "children", "named_modules", "buffers", "named_buffers", "requires_grad_", "register_buffer", "half",
               "float", "double", "save_pretrained", "step", "size", "numel", "dim", "item", "detach", "numpy"}


def other_framework(ctx: ModuleContext) -> bool:
    """The module imports TensorFlow, JAX, MXNet or Paddle and not torch: `.backward()`, `loss` mean other things."""
    index = module_index(ctx)
    if "other" not in index:
        roots = {q.split(".")[0] for q in ctx.aliases.values()}
        index["other"] = "torch" not in roots and bool(roots & {"tensorflow", "keras", "jax", "flax", "mxnet", "paddle"})
    return index["other"]


def callee(func: ast.AST) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def is_loss_call(call: ast.AST, ctx: ModuleContext) -> bool:
    """F.*_loss / F.cross_entropy, a call of a *Loss object, or of a conventionally named criterion/loss_fn."""
    if not isinstance(call, ast.Call):
        return False
    name = ctx.call_name(call) or ""
    short = name.rsplit(".", 1)[-1]
    if name.startswith("torch.nn.functional."):
        return short.endswith("_loss") or short in LOSS_FUNCTIONS
    if short[:1].isupper():  # nn.CrossEntropyLoss() builds the loss, it does not compute one
        return False
    if (ctx.constructed(call.func) or "").endswith("Loss"):
        return True
    word = callee(call.func).lower()
    return "loss" in word or "criterion" in word


def is_model_call(call: ast.AST, ctx: ModuleContext) -> bool:
    """model(x), self.net(x), self(x), model.forward(x) or another method of a model (agent.get_value(x),
    model.parameters()), or a call of a module built from torch.nn or a local class."""
    if not isinstance(call, ast.Call) or is_loss_call(call, ctx):
        return False
    if (ctx.call_name(call) or "").rsplit(".", 1)[-1][:1].isupper():  # building a model, not running it
        return False
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        if func.attr in {"forward", "parameters", "named_parameters"}:  # any other self.method(): unknown
            return True
    elif isinstance(func, ast.Attribute) and _is_model(func.value, ctx):
        return func.attr not in NOT_OUTPUTS
    return _is_model(func, ctx)


def _is_model(expr: ast.AST, ctx: ModuleContext) -> bool:
    if isinstance(expr, ast.Name) and expr.id == "self":
        return True
    built = ctx.constructed(expr) if isinstance(expr, ast.Name | ast.Attribute) else None
    if built and (built.rsplit(".", 1)[-1] in ctx.classes or built.startswith(("torch.nn.", "torchvision.models."))):
        return not built.endswith("Loss")
    return any(w in callee(expr).lower() for w in MODEL_WORDS)


_INDEX: dict[str, object] = {}


def module_index(ctx: ModuleContext) -> dict:
    """Tables ModuleContext does not keep, built once per module (the last module's are cached):
    tuple-target assignments and `+=` by (scope, name), calls by callee name, returns and backward calls
    by scope."""
    if _INDEX.get("tree") is not ctx.tree:
        tables = {k: defaultdict(list) for k in ("tuples", "augmented", "calls", "returns", "backward")}
        for node in ctx.by_type.get(ast.Assign, ()):
            for target in node.targets:
                for n in ast.walk(target) if isinstance(target, ast.Tuple | ast.List) else ():
                    if isinstance(n, ast.Name):
                        tables["tuples"][ctx.scope_of(node), n.id].append(node)
        for node in ctx.by_type.get(ast.AugAssign, ()):
            if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
                tables["augmented"][ctx.scope_of(node), node.target.id].append(node)
        for node in ctx.by_type.get(ast.Call, ()):
            tables["calls"][callee(node.func)].append(node)
            if ctx.method_name(node) in {"backward", "manual_backward"}:
                tables["backward"][ctx.scope_of(node)].append(node)
        for node in ctx.by_type.get(ast.Return, ()):
            tables["returns"][ctx.scope_of(node)].append(node)
        _INDEX.clear()
        _INDEX.update(tables, tree=ctx.tree)
    return _INDEX


def latest_value(name: ast.Name, ctx: ModuleContext) -> ast.expr | None:
    """The value last assigned to `name` before the statement that reads it (also `a, b = f(x)`)."""
    stmt = next((a for a in ctx.ancestors(name) if isinstance(a, ast.stmt)), None)
    line = stmt.lineno if stmt is not None else name.lineno
    found = [v for v in ctx.values_of(name, at=name) if v.lineno < line]
    for node in module_index(ctx)["tuples"].get((ctx.scope_of(name), name.id), ()):  # not in ctx.bindings
        if (not found or node.lineno > found[0].lineno) and node.lineno < line:
            found.insert(0, node.value)
    return found[0] if found else None


def in_no_grad(node: ast.AST, ctx: ModuleContext, depth: int = 2) -> bool:
    """Inside `with torch.no_grad()` / inference_mode / set_grad_enabled, in a function decorated with
    one, or in a function of this module that is only ever called from such a block."""
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.With | ast.AsyncWith):
            exprs = [item.context_expr for item in anc.items]
        elif isinstance(anc, ast.FunctionDef | ast.AsyncFunctionDef):
            exprs = anc.decorator_list
            calls = module_index(ctx)["calls"].get(anc.name, ())
            if depth and calls and all(in_no_grad(c, ctx, depth - 1) for c in calls):
                return True
        else:
            continue
        if any((ctx.call_name(e) if isinstance(e, ast.Call) else ctx.qualname(e)) in NO_GRAD for e in exprs):
            return True
    return False


def depends_on_graph(expr: ast.AST, ctx: ModuleContext, budget: int = 40) -> bool:
    """Whether `expr` (through names assigned earlier) uses a model or loss call."""
    todo, seen = [expr], set()
    while todo and budget > 0:
        current = todo.pop()
        budget -= 1
        for node in ast.walk(current):
            if is_model_call(node, ctx) or is_loss_call(node, ctx):
                return True
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in seen:
                seen.add(id(node))
                value = latest_value(node, ctx)
                if value is not None:
                    todo.append(value)
                elif "loss" in node.id.lower():  # a parameter or loop variable named as a loss
                    return True
    return False


def is_scalar(expr: ast.AST, ctx: ModuleContext) -> bool:
    """A plain number: literal, a name assigned a literal, or a parameter annotated or defaulted as one."""
    if isinstance(expr, ast.UnaryOp):
        expr = expr.operand
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int | float) and not isinstance(expr.value, bool)
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        if value is not None:
            return is_scalar(value, ctx)
        func = ctx.scope_of(expr)
        if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            args = func.args.args
            with_default = args[len(args) - len(func.args.defaults):]
            defaults = dict(zip([a.arg for a in with_default], func.args.defaults, strict=True))
            arg = next((a for a in args + func.args.kwonlyargs if a.arg == expr.id), None)
            if arg is not None and isinstance(arg.annotation, ast.Name) and arg.annotation.id in {"float", "int"}:
                return True
            return expr.id in defaults and is_scalar(defaults[expr.id], ctx)
    return False


class GraphBreakOnLossPath(Rule):
    """What it does: follows the tensor passed to `.backward()` back through the assignments and
    arithmetic of the same function, and flags `.detach()`, `.item()`, `.numpy()`, `.tolist()`,
    `.data`, `torch.tensor(...)`, `torch.as_tensor(...)` or `torch.from_numpy(...)` applied on
    that path to a model output or a loss.

    Why is this bad: the broken term becomes a constant. If another term still carries the graph,
    backward() runs without complaint and the broken part simply never trains. A detached loss
    target, a detached coefficient next to a live prediction, or `loss.item()` for logging is fine.
    """

    code = "MLD030"
    name = "graph-break-on-loss-path"
    category = "autograd"
    severity = "error"
    message = "{op} cuts the autograd graph on the way to backward(): this term gets no gradient"
    why = "The detached or re-created tensor is a constant to autograd, so nothing before it learns from this loss."
    fix = "Compute the term with torch operations on the live tensor; detach only targets, and use .item() for logging."
    evidence = "goodfellow/broken-parts-adapt"
    node_types = (ast.Call,)
    requires_text = ('backward',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "def step(model, criterion, opt, x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    loss = torch.tensor(loss.item(), requires_grad=True)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    GOOD = (
        "import torch\n"
        "def step(model, criterion, opt, x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    print(loss.item())\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.method_name(node) not in {"backward", "manual_backward"} or other_framework(ctx):
            return
        receiver = node.func.value
        if node.func.attr == "manual_backward" or ctx.call_name(node) == "torch.autograd.backward" or any(
                w in callee(receiver).lower() for w in ("accelerator", "fabric", "engine")):
            receiver = node.args[0] if node.args else None
        for broken, _ in _breaks(receiver, ctx, [30]) if receiver is not None else ():
            yield Hit(broken, self.message.format(op=_describe(broken, ctx)))


def _breaker(node: ast.AST, ctx: ModuleContext) -> bool:
    """A graph-breaking operation applied to something computed from a model or a loss."""
    if isinstance(node, ast.Attribute) and node.attr == "data" and isinstance(node.ctx, ast.Load):
        return depends_on_graph(node.value, ctx)
    if not isinstance(node, ast.Call):
        return False
    if ctx.call_name(node) in BREAK_FUNCTIONS:
        return bool(node.args) and depends_on_graph(node.args[0], ctx)
    return ctx.method_name(node) in BREAK_METHODS and not node.args and depends_on_graph(node.func.value, ctx)


def _breaks(expr: ast.AST, ctx: ModuleContext, budget: list[int]) -> list[tuple[ast.AST, bool]]:
    """Breaking operations on the path along which `expr` carries gradient, each with whether it is
    certainly a bug (it cuts a loss's input, or the whole term) rather than maybe a coefficient."""
    budget[0] -= 1
    if budget[0] < 0:
        return []
    if _breaker(expr, ctx):
        return [(expr, False)]
    walk = lambda e: _breaks(e, ctx, budget)  # noqa: E731
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        return walk(value) + [b for a in _augmented(expr, value, ctx) for b in walk(a)] if value is not None else []
    if isinstance(expr, ast.BinOp):
        # each addend is its own term; x + (q - x).detach() is a straight-through estimator
        if isinstance(expr.op, ast.Add):
            return [b for side in (expr.left, expr.right) if not _straight_through(side) for b in walk(side)]
        if isinstance(expr.op, ast.Pow):
            return walk(expr.left)
        # a detached factor, divisor or subtrahend next to a live tensor is a coefficient or a target: only a
        # plain number on the other side (or a live divisor's absence) makes the broken operand the whole term
        keep_left = is_scalar(expr.right, ctx) or isinstance(expr.op, ast.Div) and not depends_on_graph(expr.right, ctx)
        return [b for side, keep in ((expr.left, keep_left), (expr.right, is_scalar(expr.left, ctx)))
                for b in walk(side) if keep or b[1]]
    if isinstance(expr, ast.UnaryOp | ast.Subscript | ast.Starred):
        return walk(expr.operand if isinstance(expr, ast.UnaryOp) else expr.value)
    if isinstance(expr, ast.List | ast.Tuple):
        return [b for e in expr.elts for b in walk(e)]
    if not isinstance(expr, ast.Call):
        return []
    if is_loss_call(expr, ctx):
        inputs = expr.args[:1] or [k.value for k in expr.keywords if k.arg == "input"]
        targets = expr.args[1:2] or [k.value for k in expr.keywords if k.arg == "target"]
        # a target that carries the graph means the input side was detached on purpose (commitment losses)
        return [] if any(_live(t, ctx) for t in targets) else [(b, True) for i in inputs for b, _ in walk(i)]
    name, method = ctx.call_name(expr), ctx.method_name(expr)
    if name in PASS_FUNCTIONS and expr.args:
        return walk(expr.args[0])
    if name is None and method == "scale" and expr.args:  # scaler.scale(loss)
        return walk(expr.args[0])
    if name is None and method in PASS_METHODS and not is_model_call(expr, ctx):
        return walk(expr.func.value)
    return []


def _live(expr: ast.AST, ctx: ModuleContext) -> bool:
    """Carries a graph: computed from a model or loss, not detached and not under no_grad."""
    value = latest_value(expr, ctx) if isinstance(expr, ast.Name) else expr
    if value is None or in_no_grad(value, ctx) or _breaker(value, ctx):
        return False
    return depends_on_graph(expr, ctx)


def _augmented(name: ast.Name, value: ast.expr, ctx: ModuleContext) -> list[ast.expr]:
    """`loss += term` between the last assignment of `name` and its use: terms added to it."""
    augmented = module_index(ctx)["augmented"].get((ctx.scope_of(name), name.id), ())
    return [a.value for a in augmented if value.lineno < a.lineno < name.lineno]


def _straight_through(expr: ast.AST) -> bool:
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "detach"
            and isinstance(expr.func.value, ast.BinOp) and isinstance(expr.func.value.op, ast.Sub))


def _describe(node: ast.AST, ctx: ModuleContext) -> str:
    if isinstance(node, ast.Attribute):
        return ".data"
    name = ctx.call_name(node)
    return f"{name}(...)" if name else f".{ctx.method_name(node)}()"
