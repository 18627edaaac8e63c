"""The parameter a value comes from inside its function: `flat = preds.permute(0, 2, 1).reshape(-1, C)`;
`masked = flat[mask == 1]` comes from the parameter `preds`, whose kind the callers' arguments tell."""

from __future__ import annotations

import ast

from .callees import SELF
from .parameters import call_sites, parameter_of
from .traced import Traced
from .values import reaching_values
from .vocabulary import DEPTH, KEEP_FUNCTIONS, KEEP_METHODS
from .walk import Walk


def parameter_root(expr: ast.AST, ctx, depth: int = 12) -> ast.Name | None:
    """The parameter `expr` is, or is derived from through layout-keeping steps (reshapes, indexing, moves)
    and single assignments; None when another value is mixed in or the chain leaves the function."""
    value = expr
    for _ in range(depth):
        if isinstance(value, ast.Subscript):
            value = value.value
        elif isinstance(value, ast.Call):
            name = ctx.call_name(value)
            callee = value.func
            if name is None and isinstance(callee, ast.Attribute) and callee.attr in KEEP_METHODS:
                value = callee.value
            elif name in KEEP_FUNCTIONS and value.args:
                value = value.args[0]
            else:
                return None
        elif isinstance(value, ast.Name):
            reaching = reaching_values(value, ctx)[1]
            if reaching is None:
                return value if parameter_of(value, ctx, reassigned=True) is not None else None
            if len(reaching) != 1 or reaching[0][1] is not None:
                return None
            value = reaching[0][0]
        else:
            return None
    return None


def handed_kinds(param: ast.Name, ctx, lenient: bool = False) -> list[tuple[ast.expr, Traced]]:
    """(argument, kind) for each argument the calls of this file pass for `param`, whose value it has before any
    reassignment. A call in a base class's method (`self.state_loss(preds, ...)` in the training loop of the
    base) is asked for an instance of the subclass: its `self.forward` is the subclass's override."""
    found = parameter_of(param, ctx, reassigned=True)
    cls = ctx.parents.get(found[0]) if found is not None else None
    walk = Walk(ctx, "kinds-any", lenient=True) if lenient else Walk(ctx)
    kinds = []
    for passed in call_sites(param, ctx, reassigned=True):
        caller = ctx.enclosing_class(passed)
        env = {SELF: cls} if isinstance(cls, ast.ClassDef) and caller is not None and caller is not cls else None
        kind = walk.kind(passed, env, DEPTH)
        if kind is not None:
            kinds.append((passed, kind))
    return kinds
