"""Where a module's forward pass runs, whether a node there is reached only in training mode, and what
a hand-made dropout mask looks like (MLD023).

A module's forward pass is `forward` and the methods of the same class it calls on `self` (and those
call), unless the call itself runs only in training mode: `_attention(q, k, v)` called from forward
drops attention weights on every call just as forward would.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .evaluation import ident

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
DEPTH = 3
# random draws a mask is made of: torch.bernoulli(p), x.bernoulli_(p), torch.rand(shape) < p
BERNOULLI = {"bernoulli", "bernoulli_"}
UNIFORM = {"torch.rand", "torch.rand_like", "torch.empty_like", "torch.empty"}
UNIFORM_METHODS = {"uniform_", "rand_like"}
# what says the mask drops units: a rate or keep probability named so, or the rescaling by 1/(1-p)
DROP_WORD = re.compile(r"(?i)drop|keep|survival")


def in_forward_pass(node: ast.AST, ctx: ModuleContext) -> bool:
    """`node` is in a module's forward or in a method of its class that forward calls (outside a
    training-only branch)."""
    function = ctx.enclosing(node, FUNCS)
    if function is None:
        return False
    cls = ctx.enclosing_class(function)
    if cls is None or ctx.parent(function) is not cls:
        return False
    return function.name == "forward" or function.name in _reached_from_forward(cls, ctx)


def _reached_from_forward(cls: ast.ClassDef, ctx: ModuleContext) -> set[str]:
    def compute() -> set[str]:
        methods = {f.name: f for f in cls.body if isinstance(f, FUNCS)}
        reached: set[str] = set()
        frontier = [methods["forward"]] if "forward" in methods else []
        for _ in range(DEPTH):
            following = []
            for function in frontier:
                for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
                    func = call.func
                    if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                            and func.value.id == "self" and func.attr in methods and func.attr != "forward"
                            and func.attr not in reached and not only_when_training(call, ctx)):
                        reached.add(func.attr)
                        following.append(methods[func.attr])
            frontier = following
        return reached
    return ctx.memo(("modes", "reached-from-forward", id(cls)), compute)


def only_when_training(node: ast.AST, ctx: ModuleContext) -> bool:
    """Inside the body of `if self.training ...:` (or the else of `if not self.training:`), or after an
    early `if not self.training: return x` (also `if p == 0 or not self.training: return x`)."""
    child = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.If) and reads_training(ancestor.test):
            negated = _negated(ancestor.test)
            if (child in ancestor.body) != negated:
                return True
        if (isinstance(ancestor, ast.IfExp) and reads_training(ancestor.test)
                and (child is ancestor.body) != _negated(ancestor.test)):
            return True
        if isinstance(ancestor, ast.BoolOp) and _short_circuited(ancestor, child):
            return True
        if isinstance(ancestor, FUNCS):
            return _after_eval_exit(ancestor, child)
        child = ancestor
    return False


def _short_circuited(op: ast.BoolOp, child: ast.AST) -> bool:
    """An operand evaluated only in training: after `not self.training or ...` (stochastic depth keeps the
    block at evaluation: `keep = not self.training or bernoulli(1 - p)`) or after `self.training and ...`."""
    if child not in op.values:
        return False
    for earlier in op.values[:op.values.index(child)]:
        if reads_training(earlier) and _negated(earlier) == isinstance(op.op, ast.Or):
            return True
    return False


def _negated(test: ast.expr) -> bool:
    """True when the module is not training: `not self.training`, `self.training is False`, or an
    `or`/`and` with such an operand (`p == 0 or not self.training`)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and reads_training(test.left):
        false = isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is False
        return false and isinstance(test.ops[0], ast.Is | ast.Eq)
    return isinstance(test, ast.BoolOp) and any(_negated(v) and reads_training(v) for v in test.values)


def _after_eval_exit(function: ast.AST, statement: ast.AST) -> bool:
    """`if not self.training: return ...` earlier in the function: what follows runs only in training."""
    for earlier in function.body:
        if earlier is statement:
            return False
        if (isinstance(earlier, ast.If) and _negated(earlier.test) and reads_training(earlier.test)
                and earlier.body and isinstance(earlier.body[-1], ast.Return | ast.Raise)):
            return True
    return False


def reads_training(expr: ast.expr) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "training"
               or isinstance(n, ast.Name) and n.id in {"training", "is_training", "train"}
               for n in ast.walk(expr))


def random_mask(node: ast.AST, ctx: ModuleContext) -> bool:
    """A random draw a dropout mask is made of: `torch.bernoulli(p)`, `x.new(...).bernoulli_(p)`, or a
    comparison of uniform noise with a probability (`torch.rand(shape) < keep_prob`)."""
    if isinstance(node, ast.Call):
        name = ctx.call_name(node) or ""
        return name.rsplit(".", 1)[-1] in BERNOULLI or (
            isinstance(node.func, ast.Attribute) and node.func.attr in BERNOULLI and ctx.qualname(node.func) is None)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Lt | ast.LtE | ast.Gt | ast.GtE):
        return any(_uniform(side, ctx) for side in (node.left, node.comparators[0]))
    return False


def _uniform(expr: ast.expr, ctx: ModuleContext) -> bool:
    for n in ast.walk(expr):
        if isinstance(n, ast.Call) and ((ctx.call_name(n) or "") in UNIFORM or (
                isinstance(n.func, ast.Attribute) and n.func.attr in UNIFORM_METHODS)):
            return True
    return False


def drops_units(mask: ast.AST, ctx: ModuleContext) -> bool:
    """The random mask is dropout: its statement names a drop rate or keep probability, or rescales by
    1/(1-p), or its function or class is named for dropout (not sampling, masking of tokens, noise)."""
    statement = next((a for a in ctx.ancestors(mask) if isinstance(a, ast.stmt)), mask)
    names = [n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(statement)
             if isinstance(n, ast.Attribute | ast.Name)]
    if any(DROP_WORD.search(n) for n in names) or any(_rescales(n) for n in ast.walk(statement)):
        return True
    function = ctx.enclosing(mask, FUNCS)
    cls = ctx.enclosing_class(mask)
    return any(DROP_WORD.search(getattr(s, "name", "")) for s in (function, cls) if s is not None)


def _rescales(node: ast.AST) -> bool:
    """`x / (1 - p)` or `x * (1 / (1 - p))`: inverted-dropout rescaling."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.right, ast.BinOp)
            and isinstance(node.right.op, ast.Sub) and isinstance(node.right.left, ast.Constant)
            and node.right.left.value == 1)


# modules whose behaviour eval() switches: a class that builds one relies on its mode
MODE_MODULES = re.compile(r"torch\.nn\.(\w*Dropout\w*|BatchNorm\w*|SyncBatchNorm|InstanceNorm\w*)$")


def follows_mode(node: ast.AST, ctx: ModuleContext) -> bool:
    """The class around `node` relies on train/eval mode elsewhere: it builds dropout or BatchNorm modules
    (in __init__ or a layer-making helper) or reads `training` in another statement. MC-dropout classes (named
    for sampling or uncertainty) keep dropout on on purpose."""
    cls = ctx.enclosing_class(node)
    if cls is None or (MC_WORD.search(cls.name) and not MULTI_SAMPLE.search(cls.name)):
        return False

    def compute() -> frozenset:
        found = set()
        for n in ast.walk(cls):
            builds = isinstance(n, ast.Call) and (MODE_MODULES.match(ctx.call_name(n) or "") or _drop_configured(n)
                                                  or _library_backbone(n, ctx))
            if builds or (isinstance(n, ast.Attribute) and n.attr == "training" and isinstance(n.ctx, ast.Load)):
                found.add(n)
        return frozenset(found)
    statement = next((a for a in ctx.ancestors(node) if isinstance(a, ast.stmt)), node)
    uses = ctx.memo(("modes", "follows-mode", id(cls)), compute)
    return any(not _inside(u, statement, ctx) for u in uses)


MC_WORD = re.compile(r"(?i)mc_?drop|monte|bayes|uncertain|sampl")
# multi-sample dropout averages several dropout draws of a head during training: no MC sampling at inference
MULTI_SAMPLE = re.compile(r"(?i)multi_?sampl")
# a backbone loaded from a model library holds dropout and norm layers that model.eval() switches
BACKBONE_CALLS = re.compile(r"(timm\.create_model|torchvision\.models\.\w+|transformers\.\w+)$")
DROP_ONLY = re.compile(r"(?i)drop")  # "drop" alone: DROP_WORD also takes keep and survival


def _library_backbone(call: ast.Call, ctx: ModuleContext) -> bool:
    """`AutoModel.from_pretrained(name)`, `timm.create_model(...)`, `torchvision.models.resnet50(...)`: a
    submodule of the class whose own dropout and norm layers follow model.eval()."""
    return ctx.method_name(call) == "from_pretrained" or bool(BACKBONE_CALLS.match(ctx.call_name(call) or ""))


def _drop_configured(call: ast.Call) -> bool:
    """A submodule built with a dropout or drop-path rate that is not a literal 0 (`EgoEncoder(...,
    drop_path_rate=cfg.rate)`, `Mlp(..., drop=p)`): its dropout follows model.eval(), so the class around it
    relies on the mode too."""
    return any(k.arg and DROP_ONLY.search(k.arg) and not (isinstance(k.value, ast.Constant) and not k.value.value)
               for k in call.keywords)


def _inside(node: ast.AST, statement: ast.AST, ctx: ModuleContext) -> bool:
    return node is statement or any(a is statement for a in ctx.ancestors(node))


# token or patch dropout: a random subset of positions kept (`torch.randn(n).topk(k).indices`,
# `torch.randperm(n)[:k]`, `torch.rand(b, n).argsort(-1)[:, :k]`) in code named for dropping
RANDOM_DRAWS = {"torch.randperm", "torch.rand", "torch.randn", "torch.rand_like", "torch.randn_like"}
RANKS = {"topk", "argsort", "sort"}


def dropped_subset(draw: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """Where to report a random draw that picks the positions kept by token dropout, or None: the draw is
    ranked or sliced in its statement (a subset, not noise added to values), and the statement, an `if`
    around it or its function names dropping ("keep" alone is also MAE's masking, which is meant at
    evaluation too). The fix goes in the gate: the assignment of the flag the `if` tests (`has_drop = ...`,
    in this function), else the `if`, else the draw."""
    if (ctx.call_name(draw) or "") not in RANDOM_DRAWS or not _subset_of(draw, ctx):
        return None
    function = ctx.enclosing(draw, FUNCS)
    # the `if`s of the draw's own function (not of a class or module around it)
    gates = [a for a in ctx.ancestors(draw)
             if isinstance(a, ast.If) and function is not None and ctx.enclosing(a, FUNCS) is function]
    if any(isinstance(g.test, ast.Name) and _flag_reads_training(g.test, ctx) for g in gates):
        return None  # `use_drop = self.p > 0 and self.training`, then `if use_drop:`
    if any(_opted_in_by_caller(g.test, function, ctx) for g in gates):
        return None  # `if patch_drop > 0:` with patch_drop=0. unless the training step passes a rate
    statement = next((a for a in ctx.ancestors(draw) if isinstance(a, ast.stmt)), draw)
    # a flag tested is named by what it is assigned from too (`flag = self.token_dropout is not None`)
    named = [statement, *(g.test for g in gates), *(v for g in gates if isinstance(g.test, ast.Name)
                                                    for v in ctx.values_of(g.test, g.test))]
    if not (any(DROP_ONLY.search(ident(n) or "") for part in named for n in ast.walk(part))
            or (function is not None and DROP_ONLY.search(function.name))):
        return None
    for gate in gates:
        values = ctx.values_of(gate.test, gate.test) if isinstance(gate.test, ast.Name) else []
        if any(DROP_ONLY.search(ident(n) or "") for part in (gate.test, *values) for n in ast.walk(part)):
            if len(values) == 1 and ctx.enclosing(values[0], FUNCS) is function:  # a flag's one assignment
                return next((a for a in ctx.ancestors(values[0]) if isinstance(a, ast.stmt)), gate)
            return gate
    return draw


def _opted_in_by_caller(test: ast.expr, function: ast.AST | None, ctx: ModuleContext) -> bool:
    """The gate reads a parameter that is off unless the caller passes a value: its default here is 0, None or
    False, or this function is called (`self.forward_features(x, patch_drop)`) from a method of the module whose
    same-named parameter has such a default (msn's DeiT: only the training step passes a patch_drop)."""
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    read = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    if any(name in read for name in _off_by_default(function)):
        return True
    cls = ctx.enclosing_class(function)
    for caller in (m for m in (cls.body if cls is not None else ()) if isinstance(m, ast.FunctionDef)):
        passes = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == function.name
                     for c in ast.walk(caller))
        if passes and read & _off_by_default(caller) & {a.arg for a in function.args.args}:
            return True
    return False


def _off_by_default(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The parameters whose default is 0, None or False."""
    args = function.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg for a, d in pairs if isinstance(d, ast.Constant) and not d.value}


def _subset_of(draw: ast.Call, ctx: ModuleContext) -> bool:
    """The draw is ranked (`.topk`, `.argsort`, `torch.argsort(draw)`) or sliced (`randperm(n)[:k]`)."""
    child = draw
    for ancestor in ctx.ancestors(draw):
        if isinstance(ancestor, ast.stmt):
            return False
        if isinstance(ancestor, ast.Attribute) and ancestor.value is child and ancestor.attr in RANKS:
            return True
        if isinstance(ancestor, ast.Call) and child in ancestor.args and (ctx.call_name(ancestor) or "").rsplit(
                ".", 1)[-1] in RANKS:
            return True
        if isinstance(ancestor, ast.Subscript) and ancestor.value is child and any(
                isinstance(n, ast.Slice) for n in ast.walk(ancestor.slice)):
            return (ctx.call_name(draw) or "") == "torch.randperm"
        child = ancestor
    return False


def _flag_reads_training(flag: ast.Name, ctx: ModuleContext) -> bool:
    values = ctx.values_of(flag, flag)
    return bool(values) and all(reads_training(v) and not _negated(v) for v in values)
