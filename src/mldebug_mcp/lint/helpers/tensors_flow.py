"""Where a tensor goes inside one function: whether a value reaches what the function returns, whether
the function is a loss's or a model's forward (MLD041), and whether a value is the prediction a loss is
given, reshaped or reduced (MLD061)."""

from __future__ import annotations

import ast

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# torch's base classes of the loss modules (torch.nn.modules.loss)
LOSS_BASES = {"_Loss", "_WeightedLoss", "Loss", "Criterion"}
COLLECTING = {"append", "extend", "insert"}


def enclosing_forward(node: ast.AST, ctx) -> tuple[ast.ClassDef, ast.FunctionDef] | None:
    """(class, method) when `node` lies in a class's `forward` (not in a function nested in it)."""
    func = ctx.enclosing(node, (*FUNCTIONS, ast.Lambda))
    if not isinstance(func, FUNCTIONS) or func.name != "forward":
        return None
    cls = ctx.parent(func)
    return (cls, func) if isinstance(cls, ast.ClassDef) else None


def is_loss_class(cls: ast.ClassDef) -> bool:
    """A criterion: named as one (`CopyGeneratorLoss`, `LabelSmoothingCriterion`) or built on torch's `_Loss`."""
    words = [cls.name] + [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in cls.bases]
    return any(w.lower().endswith(("loss", "criterion")) or w in LOSS_BASES for w in words)


def reaches_return(expr: ast.AST, func: ast.AST, ctx, budget: int = 200) -> bool:
    """Whether the value of `expr` flows into a `return` of `func`: through names assigned from it
    (`a = f(expr)`, `a, b = g(a)`), lists it is added to (`outs += [expr]`, `outs.append(expr)`)."""
    stmt = _statement(expr, ctx)
    if stmt is None:
        return False
    if isinstance(stmt, ast.Return):
        return True
    tainted = _written(stmt, ctx)
    if not tainted:
        return False
    statements = [s for s in _statements(func) if s is not stmt]
    for _ in range(2):  # twice: a loop body may feed a statement above it
        for later in statements:
            budget -= 1
            if budget <= 0:
                return False
            if not _reads(later, tainted):
                continue
            if isinstance(later, ast.Return):
                return True
            tainted |= _written(later, ctx)
    return False


def _statement(node: ast.AST, ctx) -> ast.stmt | None:
    for anc in [node, *ctx.ancestors(node)]:
        if isinstance(anc, ast.stmt):
            return anc
    return None


def _statements(func: ast.AST) -> list[ast.stmt]:
    """The simple statements of `func` in source order, not entering nested functions or classes."""
    found: list[ast.stmt] = []
    stack = list(reversed(func.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            continue
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Expr | ast.Return):
            found.append(node)
            continue
        for field in ("orelse", "finalbody", "body"):  # reversed push: body first
            stack.extend(reversed(getattr(node, field, []) or []))
        for handler in reversed(getattr(node, "handlers", []) or []):
            stack.extend(reversed(handler.body))
    return found


def _written(stmt: ast.stmt, ctx) -> set[str]:
    """Names a statement stores its value into (targets of assignments, the list of `outs.append(x)`)."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AugAssign | ast.AnnAssign):
        targets = [stmt.target]
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
            and ctx.method_name(stmt.value) in COLLECTING:
        targets = [stmt.value.func.value]
    else:
        return set()
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _reads(stmt: ast.stmt, names: set[str]) -> bool:
    value = stmt.value
    if value is None:
        return False
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names for n in ast.walk(value))


# layout and reductions that keep a zero a zero (a sum of zeros, a mean, a gather of one)
ZERO_KEEPING_METHODS = {"view", "reshape", "sum", "mean", "squeeze", "unsqueeze", "permute", "transpose",
                        "contiguous", "gather", "float", "double", "to", "flatten", "view_as", "expand_as", "prod"}
ZERO_KEEPING_FUNCTIONS = {"torch.sum", "torch.mean", "torch.gather", "torch.prod", "torch.flatten", "torch.squeeze"}
IN_PLACE_FLOORS = {"clamp_", "clamp_min_", "clip_", "add_"}
# the steps that make a value a probability-like quantity: a sum or mean over an axis, a picked entry
REDUCING_METHODS = {"sum", "mean", "prod", "gather"}
REDUCING_FUNCTIONS = {"torch.sum", "torch.mean", "torch.prod", "torch.gather"}


def computes_loss(func: ast.AST, ctx) -> bool:
    """A function that computes a loss: named so (`get_loss`, `nll_loss`), a loss class's `forward`, or a
    `forward` whose result is a value named as a loss or a full reduction scored against a later input."""
    if not isinstance(func, FUNCTIONS):
        return False
    if "loss" in func.name.lower():
        return True
    found = enclosing_forward(func.body[0], ctx) if func.body else None
    if found is None:
        return False
    cls, forward = found
    if forward is not func:
        return False
    returns = [r.value for r in ctx.in_scope(func, (ast.Return,)) if r.value is not None]
    return is_loss_class(cls) or any(isinstance(r, ast.Name) and "loss" in r.id.lower() for r in returns) \
        or any(_scalar_against_target(r, func, ctx) for r in returns)


REDUCTIONS = {"sum", "mean"}


def _scalar_against_target(expr: ast.AST, func: ast.AST, ctx) -> bool:
    """A forward returning `-torch.sum(torch.log(p) * y) / n`, whatever it is called: a full reduction (no dim)
    of an expression that uses an input after the first (the target the prediction is scored against)."""
    params = _inputs(func)[1:]
    for _ in range(3):
        if isinstance(expr, ast.Name):
            values = [v for v in ctx.values_of(expr, at=expr) if ctx.scope_of(v) is func]
            expr = values[0] if values else None
        while isinstance(expr, ast.UnaryOp | ast.BinOp):
            # `-total / n`, `total * w`: the reduction scaled by a count or a weight
            expr = expr.operand if isinstance(expr, ast.UnaryOp) else expr.left
        if not isinstance(expr, ast.Name):
            break
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in REDUCTIONS
            and not expr.keywords):
        return False
    method = ctx.call_name(expr) is None  # `x.sum()` on a tensor, or `torch.sum(x)`
    if method and expr.args or not method and len(expr.args) != 1:
        return False  # a reduction over a dim keeps a per-sample tensor
    reduced = expr.func.value if method else expr.args[0]
    return any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(reduced))


def _inputs(func: ast.AST) -> list[str]:
    """The positional parameters of a function or method, without `self`/`cls`."""
    return [a.arg for a in func.args.posonlyargs + func.args.args if a.arg not in {"self", "cls"}]


def from_prediction(expr: ast.AST, func: ast.AST, ctx, latest, budget: int = 12) -> bool:
    """Whether `expr` is what sums, means, gathers or divisions by a count made of the function's first input
    (the prediction a loss is given), through layout changes, with nothing that lifts it off zero on the way
    (`+ eps`, a clamp; `latest(name)` gives the value a name held before it is read). The bare input is not
    enough: a loss of log-magnitudes is handed values its caller floored."""
    args = _inputs(func)
    if not args:
        return False
    prediction = args[0]
    floored = {_floored_name(c) for c in ctx.in_scope(func, (ast.Call,)) if ctx.method_name(c) in IN_PLACE_FLOORS}
    current, reduced = expr, False
    for _ in range(budget):
        if isinstance(current, ast.Name):
            if current.id in floored:
                return False
            value = latest(current, ctx)
            if value is None:
                return reduced and current.id == prediction
            current = value
        elif isinstance(current, ast.Subscript):
            current = current.value
        elif isinstance(current, ast.BinOp) and isinstance(current.op, ast.Div | ast.Mult) \
                and isinstance(current.right, ast.Name | ast.Constant | ast.Attribute):
            reduced = reduced or isinstance(current.op, ast.Div)
            current = current.left
        elif isinstance(current, ast.Call):
            name = ctx.call_name(current)
            method = ctx.method_name(current) if name is None else None
            if name in ZERO_KEEPING_FUNCTIONS and current.args:
                reduced = reduced or name in REDUCING_FUNCTIONS
                current = current.args[0]
            elif method in ZERO_KEEPING_METHODS:
                reduced = reduced or method in REDUCING_METHODS
                current = current.func.value
            else:
                return False
        else:
            return False
    return False


def _floored_name(call: ast.Call) -> str | None:
    receiver = call.func.value
    return receiver.id if isinstance(receiver, ast.Name) else None


PROBABILITIES = {"sigmoid", "softmax"}
RESHAPING = {"squeeze", "unsqueeze", "view", "reshape", "flatten", "sum", "contiguous"}
WHERE = {"torch.where"}


def shared_probability(log: ast.Call, argument: ast.expr, ctx) -> bool:
    """Whether a log's argument is a name holding a sigmoid/softmax output that the function also
    uses for something else (`p = torch.sigmoid(z)`; `(1 - p) ** gamma * torch.log(p)`): the
    probability itself is needed, so the fix is a floor on it (MLD061), not log-space (MLD060)."""
    if not isinstance(argument, ast.Name) or ctx.activation_of(argument) not in PROBABILITIES:
        return False
    func = ctx.enclosing(log, (*FUNCTIONS, ast.Lambda))
    inside = {id(n) for n in ast.walk(log)}
    return func is not None and any(
        isinstance(n, ast.Name) and n.id == argument.id and isinstance(n.ctx, ast.Load) and id(n) not in inside
        for n in ast.walk(func))


TORCH_RESHAPING = {f"torch.{f}" for f in ("sum", "mean", "squeeze", "flatten", "reshape", "prod")}
# picking entries of a probability tensor: a picked entry, a top-k or sorted one (not the max) can be 0
PICKS = {"torch.gather", "torch.take_along_dim", "torch.topk", "torch.sort"}
RANKED = {"topk", "sort", "take_along_dim"}


def masked_probability(expr: ast.expr, ctx, depth: int = 3) -> bool:
    """A probability picked or masked to a part that can be 0: `probs * one_hot`, `torch.where(y == 1,
    p, 1 - p)`, `probs.gather(1, y)`, `probs[idx]`, a mixture `(weights * densities).sum(-1)`, a ratio of two
    probabilities `p / q`, directly or held in a name (reshaped or summed)."""
    if depth == 0:
        return False
    value = ctx.resolve(expr) if isinstance(expr, ast.Name | ast.Attribute) else expr
    steps = 8  # `p = p.view(n, -1)` resolves the p it reshapes to this same call: a bound, not a cycle forever
    while steps and isinstance(value, ast.Call) and (
            ctx.call_name(value) is None and ctx.method_name(value) in RESHAPING
            or ctx.call_name(value) in TORCH_RESHAPING and value.args):
        steps -= 1
        # probs.gather(1, a).squeeze(1), (w.softmax(-1) * comps).sum(-1), torch.sum(q * mask, 1)
        value = value.func.value if ctx.call_name(value) is None else value.args[0]
        value = ctx.resolve(value) if isinstance(value, ast.Name | ast.Attribute) else value
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return any(_probability(side, ctx) for side in (value.left, value.right))
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):  # p / q: q's zeros give inf, p's -inf
        return _probability(value.right, ctx) and _probability(value.left, ctx)
    if isinstance(value, ast.Call) and ctx.call_name(value) in WHERE and len(value.args) == 3:
        return any(_probability(branch, ctx) for branch in value.args[1:])
    if isinstance(value, ast.Call) and ctx.call_name(value) is None and ctx.method_name(value) == "gather":
        return _probability(value.func.value, ctx) or masked_probability(value.func.value, ctx, depth - 1)
    if isinstance(value, ast.Call) and ctx.call_name(value) in PICKS and value.args:
        return _probability(value.args[0], ctx) or masked_probability(value.args[0], ctx, depth - 1)
    if isinstance(value, ast.Call) and ctx.call_name(value) is None and ctx.method_name(value) in RANKED:
        return _probability(value.func.value, ctx)  # probs.topk(k): the k-th best can be an exact 0
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        # a mixture of masked probabilities (`g * p_vocab + (1 - g) * attn`) is 0 where every part is
        return all(masked_probability(side, ctx, depth - 1) for side in (value.left, value.right))
    if isinstance(value, ast.Subscript):
        return _probability(value.value, ctx)
    return False


def _probability(expr: ast.expr, ctx) -> bool:
    """A sigmoid/softmax output, or one minus it."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and isinstance(expr.left, ast.Constant) \
            and expr.left.value == 1:
        return _probability(expr.right, ctx)
    return ctx.activation_of(expr) in PROBABILITIES
