import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.evaluation import (
    ident,
    is_eval_call,
    is_eval_loader,
    is_train_call,
    model_call,
    no_grad_expr,
    own_nodes,
    scope_calls,
    under_no_grad,
    uses_torch,
)
from ..helpers.loops import is_backward, is_optimizer_step
from ..helpers.modes_nograd import has_eval_call, unguarded_evaluation
from ..rule import Hit, Rule

STORE = {"append", "extend", "insert", "appendleft", "put", "setdefault"}
# attributes and functions whose result carries no graph
SAFE = {"detach", "item", "tolist", "numpy", "data", "shape", "dtype", "device", "size", "ndim", "dim", "numel",
        "argmax", "argmin", "len", "isinstance", "type"}
PASS_THROUGH = (ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List, ast.Dict, ast.Starred, ast.IfExp, ast.keyword)
GRAD = {"backward", "grad", "requires_grad", "requires_grad_", "retain_grad", "enable_grad", "vjp", "jvp", "jacrev",
        "jacfwd", "jacobian", "hessian"}


class EvaluationWithoutNoGrad(Rule):
    """What it does: flags a model call in evaluation code (a loop over a val/test/dev loader, or
    code after model.eval()) that runs outside torch.no_grad()/inference_mode() and whose output
    is kept: appended to a list, accumulated with +=, stored in an attribute or collected by a
    comprehension, without .detach() or .item(). Code that computes gradients (backward,
    autograd.grad, requires_grad) is left alone: saliency maps and attacks need them. Also flags a
    call, outside no_grad, of an evaluation function of the same file (it calls model.eval() itself, or
    the caller did just before) that runs the model over a loop with no no_grad of its own: the fix
    wraps that call. And, once per loop at its first model call, a loop over evaluation data (a val/test
    loader, also through a progress bar: `tq = tqdm(val_dataset)`) that runs the model outside no_grad even
    when its outputs only feed `.item()`, unless a caller of its function holds no_grad, the loop hands the
    model to another call (an attack) or uses the legacy `volatile=True`.

    Why is this bad: eval() does not turn off autograd. Every forward records a graph, and a
    kept output keeps that graph and its activations alive, so memory grows with each batch
    until evaluation runs out of memory or slows to a crawl; even outputs dropped at once make each
    forward store its activations for a backward that never comes. The numbers are still right.

    Severity info (hygiene), not warning: metrics and predictions are exactly the same with or without
    no_grad; what it costs is memory and time, and when the memory runs out evaluation fails loudly
    (CUDA out of memory). An evaluation loop whose outputs only feed loss.item() frees each graph at
    the next batch, but every forward still holds its activations for a backward that never comes, so
    evaluation needs a training step's memory. Maintainers of seven projects in the corpora accepted a
    no_grad fix for their evaluation (FCGF, robosat, MTN, DeblurGANv2, end2end-asr, fairchem, GraphGym),
    several after validation ran out of memory.
    """

    code = "MLD022"
    name = "evaluation-without-no-grad"
    category = "autograd"
    severity = "info"
    message = "evaluation output is kept outside torch.no_grad(): each batch's autograd graph stays in memory"
    why = "eval() does not disable autograd; stored outputs keep every batch's graph and activations alive."
    fix = "Wrap evaluation in torch.no_grad() or torch.inference_mode() (or decorate the function), or keep .detach()."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    requires_text = ("eval", "valid", "val_", "_val", "test", "loader", "Loader", "dev")  # evaluation code only
    BAD = (
        "import torch\n"
        "def predict(model, test_loader):\n"
        "    model.eval()\n"
        "    outputs = []\n"
        "    for x, _ in test_loader:\n"
        "        outputs.append(model(x))\n"
        "    return torch.cat(outputs)\n"
    )
    GOOD = (
        "import torch\n"
        "@torch.no_grad()\n"
        "def predict(model, test_loader):\n"
        "    model.eval()\n"
        "    outputs = []\n"
        "    for x, _ in test_loader:\n"
        "        outputs.append(model(x))\n"
        "    return torch.cat(outputs)\n"
    )

    UNKEPT = ("the model runs in this evaluation loop outside torch.no_grad(): each batch records an autograd graph "
              "and holds the activations a backward would need until its outputs are freed, so evaluation takes "
              "training-step memory (validation OOMs) and time; wrap the loop in torch.no_grad()")

    def __init__(self) -> None:
        self._loops_told: set[ast.AST] = set()

    def applies(self, ctx: ModuleContext) -> bool:
        # both findings need an eval() call (unguarded_evaluation), or evaluation data looped over (_evaluation_code,
        # which also holds with any eval() call)
        return uses_torch(ctx) and _evaluation_code(ctx)

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        # applies() has already asked uses_torch and _evaluation_code of this module
        evaluation = unguarded_evaluation(node, ctx)
        if evaluation is not None:
            yield Hit(node, f"{evaluation.name}() evaluates the model with autograd on: each batch builds a graph "
                            "and keeps its activations; run it under torch.no_grad()")
            return
        if not model_call(node, ctx) or under_no_grad(node, ctx):
            return
        scope = ctx.scope_of(node)
        if isinstance(scope, ast.Lambda):
            return
        if not (_in_val_loop(node, scope, ctx) or _after_eval(node, scope, ctx)) or _grad_disabled(node, scope, ctx):
            return
        if _kept(node, scope, ctx, 0, node):
            yield Hit(node)
            return
        loop = _val_loop(node, scope, ctx)
        if loop is not None and loop not in self._loops_told and _plain_evaluation(loop, node, scope, ctx):
            self._loops_told.add(loop)  # once per loop, at its first model call: the fix wraps the loop
            calls = sorted((c for c in ast.walk(loop) if isinstance(c, ast.Call) and model_call(c, ctx)),
                           key=lambda c: (c.lineno, c.col_offset))
            if not any(_kept(c, scope, ctx, 0, c) for c in calls):  # a kept output is reported where it is
                yield Hit(calls[0] if calls else node, self.UNKEPT)


COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _evaluation_code(ctx: ModuleContext) -> bool:
    """The file has what the checks after unguarded_evaluation start from: an eval() call (for _after_eval)
    or a loop or comprehension over evaluation data (for _in_val_loop). Most library files have neither,
    and then no model call needs to be looked at."""
    def compute() -> bool:
        if has_eval_call(ctx):
            return True
        loops = (n.iter for kind in (ast.For, ast.AsyncFor) for n in ctx.by_type.get(kind, ()))
        comprehensions = (g.iter for kind in COMPREHENSIONS for n in ctx.by_type.get(kind, ()) for g in n.generators)
        return any(is_eval_loader(i) or is_eval_loader(_wrapped(i, ctx)) for i in loops) \
            or any(is_eval_loader(i) for i in comprehensions)
    return ctx.memo(("mld022", "evaluation-code"), compute)


def _scope_nodes(scope: ast.AST, ctx: ModuleContext, kind: type) -> list[ast.AST]:
    def compute():
        if isinstance(scope, ast.Module):
            return [n for n in ctx.by_type.get(kind, ()) if ctx.scope_of(n) is scope]
        return [n for n in own_nodes(scope, ctx) if isinstance(n, kind)]
    return ctx.memo(("nodes", id(scope), kind), compute)


def _uses_grad(nodes, ctx: ModuleContext) -> bool:
    for n in nodes:
        if isinstance(n, ast.Call) and (is_backward(n) or is_optimizer_step(n, ctx)):
            return True
        if isinstance(n, ast.Attribute | ast.Name) and (ident(n) in GRAD or (ctx.qualname(n) or "").endswith(".grad")):
            return True
        if isinstance(n, ast.keyword) and n.arg == "requires_grad" \
                and not (isinstance(n.value, ast.Constant) and n.value.value is False):
            return True  # `Variable(x, requires_grad=False)` asks for no gradient
    return False


def _grad_disabled(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    """A bare torch.set_grad_enabled(False) earlier in the scope or at module level."""
    switches = ctx.memo(("switch",), lambda: [
        c for c in ctx.by_type.get(ast.Call, ())
        if (ctx.call_name(c) or "").endswith("set_grad_enabled") and isinstance(ctx.parent(c), ast.Expr)
        and no_grad_expr(c, ctx)
    ])
    return any(ctx.scope_of(c) is ctx.tree or (ctx.scope_of(c) is scope and c.lineno < node.lineno) for c in switches)


def _in_val_loop(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    return _val_loop(node, scope, ctx) is not None


def _val_loop(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """The loop or comprehension over evaluation data (a val/test loader) that runs `node`, when nothing in it
    uses gradients."""
    for anc in ctx.ancestors(node):
        if anc is scope:
            return None
        loop = isinstance(anc, ast.For | ast.AsyncFor)
        iters = [anc.iter] if loop else [g.iter for g in getattr(anc, "generators", [])]  # comprehensions
        if any(is_eval_loader(i) or is_eval_loader(_wrapped(i, ctx)) for i in iters):
            # test-time adaptation, saliency over a test set
            return None if _uses_grad(ast.walk(anc), ctx) else anc
    return None


def _plain_evaluation(loop: ast.AST, call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """An evaluation loop whose outputs are dropped, to report where it is: not in a function this file calls
    under no_grad (or from a function called so) or where the call is reported (unguarded_evaluation), not with
    the legacy `volatile=True`, and not handing the model to another call (an attack that needs its gradients)."""
    if _guarded_by_callers(scope, ctx, 3):
        return False
    model = ast.dump(call.func)
    for node in ast.walk(loop):
        if isinstance(node, ast.keyword) and node.arg == "volatile":
            return False
        if isinstance(node, ast.Call) and any(ast.dump(a) == model for a in node.args):
            return False
    return True


def _guarded_by_callers(function: ast.AST, ctx: ModuleContext, depth: int) -> bool:
    """A call of this function, or of a function calling it (up to `depth` levels), runs under no_grad or is
    reported as an unguarded evaluation."""
    if depth <= 0 or not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for caller in (c for c in ctx.by_type.get(ast.Call, ()) if ident(c.func) == function.name):
        if under_no_grad(caller, ctx) or unguarded_evaluation(caller, ctx) is not None \
                or _guarded_by_callers(ctx.scope_of(caller), ctx, depth - 1):
            return True
    return False


def _wrapped(loop_iter: ast.expr, ctx: ModuleContext) -> ast.AST:
    """What a progress bar named in the loop wraps: `tq = tqdm(self.val_dataset)`, `for data in tq`."""
    inner = loop_iter.args[0] if isinstance(loop_iter, ast.Call) and ident(loop_iter.func) == "enumerate" \
        and loop_iter.args else loop_iter
    value = ctx.resolve(inner) if isinstance(inner, ast.Name) else None
    return value if isinstance(value, ast.Call) and value is not inner else loop_iter


def _after_eval(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    """model.eval() earlier in the same scope, no .train() in between, and no gradient use at all."""
    last_eval = last_train = 0
    for c in scope_calls(scope, ctx):
        if c.lineno < node.lineno:
            last_eval = c.lineno if is_eval_call(c) else last_eval
            last_train = c.lineno if is_train_call(c) else last_train
    if not last_eval or last_train >= last_eval:
        return False
    kinds = (ast.Call, ast.Attribute, ast.Name, ast.keyword)
    return not ctx.memo(("grad", id(scope)), lambda: any(_uses_grad(_scope_nodes(scope, ctx, k), ctx) for k in kinds))


def _kept(node: ast.AST, scope: ast.AST, ctx: ModuleContext, depth: int, origin: ast.AST) -> bool:
    """Whether a graph-carrying value (`origin`, then what it flows into) reaches a container,
    an accumulator or an attribute."""
    parent = ctx.parent(node)
    if depth > 8 or parent is None:
        return False
    if isinstance(parent, ast.Attribute):
        if parent.attr in SAFE:
            return False
        up = ctx.parent(parent)
        return _kept(up if isinstance(up, ast.Call) and up.func is parent else parent, scope, ctx, depth + 1, origin)
    if isinstance(parent, ast.Call):
        if isinstance(parent.func, ast.Attribute) and parent.func.attr in STORE and node is not parent.func:
            return True
        if (ctx.call_name(parent) or ident(parent.func) or "").rsplit(".", 1)[-1] in SAFE:
            return False
        return _kept(parent, scope, ctx, depth + 1, origin)  # criterion(out, y), F.softmax(out), torch.cat(...)
    if isinstance(parent, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        return True  # outputs of many batches gathered together
    if isinstance(parent, ast.AugAssign):
        return node is parent.value
    if isinstance(parent, ast.Subscript):
        return node is parent.value and _kept(parent, scope, ctx, depth + 1, origin)
    if isinstance(parent, PASS_THROUGH):
        return _kept(parent, scope, ctx, depth + 1, origin)
    if isinstance(parent, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node is parent.value:
        return _assigned_kept(parent, scope, ctx, depth, origin)
    return False  # compared, returned, printed, discarded


def _assigned_kept(assign: ast.AST, scope: ast.AST, ctx: ModuleContext, depth: int, origin: ast.AST) -> bool:
    targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
    loads = _scope_nodes(scope, ctx, ast.Name)
    inside = {id(n) for n in ast.walk(origin)}  # `h = model(h)` feeds the input, `total = total + loss` accumulates
    for target in targets:
        if isinstance(target, ast.Subscript | ast.Attribute):
            return True  # results[i] = out, self.last_logits = out
        for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
            if any(isinstance(v, ast.Name) and v.id == name and id(v) not in inside for v in ast.walk(assign.value)):
                return True
            for load in loads:
                if (load.id == name and isinstance(load.ctx, ast.Load) and load.lineno >= assign.lineno
                        and _kept(load, scope, ctx, depth + 1, load)):
                    return True
    return False
