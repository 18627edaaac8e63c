"""Where fitted data is split in another function (MLD051): a preprocessing function fits on every row it is
given and returns the transformed data, and its caller (or a function the caller hands the data to) cuts it
into training and held-out parts; or a method fits on `self`'s data and another method of the class splits it.
"""

import ast

from ..context import ModuleContext
from .data import SPLIT_BOUND_WORDS, WORDS, _mentions, split_by_hand

SPLITS = {"sklearn.model_selection.train_test_split", "sklearn.model_selection._split.train_test_split",
          "sklearn.cross_validation.train_test_split", "torch.utils.data.random_split",
          "torch.utils.data.dataset.random_split"}
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def split_elsewhere(fit: ast.AST, tainted: set[str], scope: ast.AST, ctx: ModuleContext) -> bool:
    if not isinstance(scope, FUNCTIONS):
        return False
    cls = ctx.parent(scope)
    if "self" in tainted and isinstance(cls, ast.ClassDef):
        return any(_splits(method, {"self"}, method.lineno, ctx) for method in cls.body
                   if isinstance(method, FUNCTIONS) and method is not scope)
    returns = [r.value for r in ctx.in_scope(scope, (ast.Return,)) if r.value is not None and r.lineno >= fit.lineno]
    if not any(_mentions(r, tainted) or any(n is fit for n in ast.walk(r)) for r in returns):
        return False  # the fitted data does not leave the function
    method = isinstance(cls, ast.ClassDef)
    for call in ctx.by_type.get(ast.Call, ()):
        callee = call.func
        if not (not method and isinstance(callee, ast.Name) and callee.id == scope.name or method
                and isinstance(callee, ast.Attribute) and callee.attr == scope.name
                and isinstance(callee.value, ast.Name) and callee.value.id == "self" and cls in ctx.ancestors(call)):
            continue
        statement = ctx.enclosing(call, (ast.stmt,))
        if not isinstance(statement, ast.Assign):
            continue
        names = {n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        caller = ctx.scope_of(call)
        if _splits(caller, names, call.lineno, ctx) or handed_to_a_splitter(caller, names, call.lineno, ctx):
            return True
    return False


def _splits(scope: ast.AST, names: set[str], after: int, ctx: ModuleContext) -> bool:
    """A split call on the data, a cut by hand into both parts, or a slice of it at a bound named for a split
    (`data.targs[cfg.train_size:]`, `self.values[:n_train]`)."""
    if split_by_hand(scope, names, after, ctx):
        return True
    for node in ctx.in_scope(scope, (ast.Call, ast.Subscript, ast.Tuple)):
        if node.lineno <= after:
            continue
        if isinstance(node, ast.Tuple):
            if _complementary_pair(node, names):
                return True  # `return values[:n], values[n:]`: two parts of the data side by side
            continue
        if isinstance(node, ast.Call):
            if ctx.call_name(node) in SPLITS and any(_mentions(a, names) for a in node.args):
                return True
            continue
        root = node.value
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        cut = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        if isinstance(root, ast.Name) and root.id in names and isinstance(cut, ast.Slice) and any(
                bound is not None and _names_a_split(ast.unparse(bound)) for bound in (cut.lower, cut.upper)):
            return True
    return False


def _complementary_pair(pair: ast.Tuple, names: set[str]) -> bool:
    uppers, lowers = set(), set()
    for element in pair.elts:
        if isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name) and element.value.id in names \
                and isinstance(element.slice, ast.Slice):
            cut = element.slice
            if cut.lower is None and cut.upper is not None:
                uppers.add(ast.unparse(cut.upper))
            elif cut.lower is not None and cut.upper is None:
                lowers.add(ast.unparse(cut.lower))
    return bool(uppers & lowers)


def _names_a_split(bound: str) -> bool:
    return any(w.lower() in SPLIT_BOUND_WORDS for w in WORDS.findall(bound))


def handed_to_a_splitter(scope: ast.AST, names: set[str], after: int, ctx: ModuleContext) -> bool:
    """`train(model, data, cfg)` where that function of this file splits its parameter."""
    cls = ctx.enclosing(scope, (ast.ClassDef,)) if isinstance(scope, FUNCTIONS) else None
    for call in ctx.in_scope(scope, (ast.Call,)):
        if call.lineno <= after:
            continue
        callee = call.func
        if isinstance(callee, ast.Name):
            func = ctx.functions.get(callee.id)
        elif isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self" \
                and cls is not None:  # self.split_data(df): a method of the same class
            func = next((m for m in cls.body if isinstance(m, FUNCTIONS) and m.name == callee.attr), None)
        else:
            func = None
        if func is None:
            continue
        params = [a.arg for a in func.args.posonlyargs + func.args.args if a.arg != "self"]
        given = {params[i] for i, a in enumerate(call.args) if i < len(params) and _mentions(a, names)}
        given |= {k.arg for k in call.keywords if k.arg in params and _mentions(k.value, names)}
        if given and _splits(func, given, func.lineno, ctx):
            return True
    return False
