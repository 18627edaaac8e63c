"""The autograd graph around a loss: loss and model calls, the values names held, grad-disabled regions
(reached through callers too), and per-module tables of assignments, calls and returns (MLD030-MLD032)."""

import ast
from collections import defaultdict

from ..context import ModuleContext

LOSS_FUNCTIONS = {"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"}
NO_GRAD = {"torch.no_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.autograd.no_grad",
           "torch.autograd.grad_mode.no_grad"}
MODEL_WORDS = ("model", "net", "encoder", "decoder", "generator", "discriminator", "actor", "critic", "policy",
               "agent", "backbone", "classifier", "teacher", "student")
# methods of a model whose result is not an output carrying its graph
NOT_OUTPUTS = {"eval", "train", "to", "cuda", "cpu", "state_dict", "load_state_dict", "zero_grad", "apply", "modules",
               "children", "named_modules", "buffers", "named_buffers", "requires_grad_", "register_buffer", "half",
               "float", "double", "save_pretrained", "step", "size", "numel", "dim", "item", "detach", "numpy"}
# methods after which a value no longer carries a graph: a number or a new leaf from here on (MLD035, MLD036)
GRAPH_CUTS = frozenset({"detach", "detach_", "item", "numpy", "tolist", "cpu_numpy"})


def other_framework(ctx: ModuleContext) -> bool:
    """The module imports TensorFlow, JAX, MXNet or Paddle and not torch: `.backward()`, `loss` mean other things."""
    def compute() -> bool:
        roots = {q.split(".")[0] for q in ctx.aliases.values()}
        return "torch" not in roots and bool(roots & {"tensorflow", "keras", "jax", "flax", "mxnet", "paddle"})

    return ctx.memo(("other-framework",), compute)


def own_key(expr: ast.AST) -> str | None:
    """`v3` or `self.v3`: a local or global name, or a value the object holds (the spelling its uses share)."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return f"self.{expr.attr}"
    return None


def callee(func: ast.AST) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def held_name(expr: ast.AST) -> str:
    """The name a value is read under: `x`, `cfg.keep_prob`'s `keep_prob`, `out["logits"]`'s `logits`; else ''."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
        return expr.slice.value if isinstance(expr.slice.value, str) else ""
    return callee(expr)


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
    word = callee(call.func)
    if word[:1].isupper():  # PatchNCELoss(opt): a class of the project builds a loss object, as above
        return False
    word = word.lower()
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


_INDEX = ("graph-index",)


def module_index(ctx: ModuleContext) -> dict:
    """Tables ModuleContext does not keep, built once per module: tuple-target assignments and `+=` by
    (scope, name), calls by callee name, returns and backward calls by scope."""
    index = ctx._memo.get(_INDEX)  # called for most names a rule follows: no closure on the hot path
    if index is None:
        index = ctx._memo[_INDEX] = _build_index(ctx)
    return index


def _build_index(ctx: ModuleContext) -> dict:
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
    return tables


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
