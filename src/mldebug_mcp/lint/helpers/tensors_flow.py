"""Where a tensor goes inside one function: whether a value reaches what the function returns, and whether
the function is a loss's or a model's forward (MLD041)."""

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
