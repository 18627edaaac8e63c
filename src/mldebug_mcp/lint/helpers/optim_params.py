"""What an optimiser was built on: the modules whose parameters it holds, read from its construction.

`torch.optim.Adam(model.parameters())` holds `model`; `SGD([{"params": enc.parameters()}, ...])` holds
`enc`; `Adam(list(a.parameters()) + list(b.parameters()))` holds `a` and `b`. Paths are dotted names
(`self.netD`, `model.fc`); None means the source cannot be read (a parameter list passed in, a helper).
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext

ITERATORS = {"parameters", "named_parameters", "modules", "named_modules", "children", "named_children"}
# a covered source: (dotted path, only the parameters that were trainable when it was read)
Source = tuple[str, bool]


# the families an optimiser class is named after, at the end of its name (OpenAIAdam, FusedLAMB, BertAdam)
OPTIMISER_FAMILY = re.compile(r"\w*(Adam|AdamW|SGD|RMSprop|Adagrad|Adafactor|Adadelta|Adamax|Lamb|LAMB|Lion|LBFGS|"
                              r"NovoGrad|AdaBound|Ranger|Lars|LARS)")


def is_optimizer_name(name: str | None) -> bool:
    """A qualified class name of an optimiser: torch.optim.* (or any *.optim.* class), transformers.AdamW,
    or an imported class named after an optimiser family (`from opt import OpenAIAdam`)."""
    if not name or "lr_scheduler" in name or not name.rsplit(".", 1)[-1][:1].isupper():
        return False
    if ".optim." in f".{name}." or name == "transformers.AdamW":
        return True
    return "." in name and OPTIMISER_FAMILY.fullmatch(name.rsplit(".", 1)[-1]) is not None


def self_attribute(expr: ast.AST, name: str | None = None) -> bool:
    """`self.<name>` (any attribute of self when `name` is None)."""
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self" \
        and (name is None or expr.attr == name)


def dotted(expr: ast.AST | None) -> str | None:
    """`self.model.fc` for an attribute chain on a name; a subscript keeps its base (`blocks[0]` -> `blocks`)."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = dotted(expr.value)
        return f"{base}.{expr.attr}" if base else None
    return dotted(expr.value) if isinstance(expr, ast.Subscript) else None


def within(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer + ".")


def covered(expr: ast.AST | None, ctx: ModuleContext, _followed: frozenset = frozenset()) -> list[Source] | None:
    """The modules a parameter expression draws from; None when any part is unknown (or when the names lead back
    to a value already followed: `params = [{'params': decay}, ...]` with `decay` drawn from the earlier `params`
    resolves `params` to itself)."""
    if isinstance(expr, ast.Name):
        value = ctx.resolve(expr)
        if value is expr or value in _followed:
            return None
        return covered(value, ctx, _followed | {value})
    if isinstance(expr, ast.Dict):  # a param group
        return covered(next((v for k, v in zip(expr.keys, expr.values)
                             if isinstance(k, ast.Constant) and k.value == "params"), None), ctx, _followed)
    name = ctx.call_name(expr) or getattr(getattr(expr, "func", None), "id", "")
    if isinstance(expr, ast.ListComp | ast.GeneratorExp) or (name == "filter" and len(expr.args) == 2):
        # [p for p in model.parameters() if p.requires_grad], filter(lambda p: p.requires_grad, ...)
        source = expr.args[1] if name == "filter" else expr.generators[0].iter
        inner = covered(source, ctx, _followed)
        return inner and [(p, "requires_grad" in ast.dump(expr)) for p, _ in inner]
    if isinstance(expr, ast.Call) and ctx.method_name(expr) in ITERATORS:
        path = dotted(expr.func.value)
        return [(path, False)] if path else None
    parts = (expr.elts if isinstance(expr, ast.List | ast.Tuple)
             else [expr.left, expr.right] if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add)
             else expr.args if name in {"list", "tuple", "itertools.chain"} else [])
    found = [covered(p, ctx, _followed) for p in parts]
    return None if not found or any(f is None for f in found) else [c for f in found for c in f]


def params_argument(call: ast.Call) -> ast.AST | None:
    """The parameter argument of an optimiser construction: the first positional or `params=`."""
    return call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "params"), None)


def optimizer_construction(expr: ast.AST, ctx: ModuleContext) -> ast.Call | None:
    """The `torch.optim.X(...)` call an optimiser expression was built by, when it is visible here."""
    value = ctx.resolve(expr)
    if isinstance(value, ast.Call) and is_optimizer_name(ctx.call_name(value)):
        return value
    return None


def optimizer_sources(expr: ast.AST, ctx: ModuleContext) -> list[Source] | None:
    """The modules an optimiser expression holds, when its construction is visible and readable."""
    call = optimizer_construction(expr, ctx)
    if call is None:
        return None
    params = params_argument(call)
    return covered(params, ctx) if params is not None else None
