import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import FITS, preprocessor
from ..rule import Hit, Rule

# one word of an identifier naming held-out data: X_test, xval, test_df, valid_set, holdout, dev
HELD_OUT = re.compile(r"[xy]?(test|tst|val|valid|validation|holdout|dev|eval)(set|data|df|ds|x|y)?s?")


def words(expr: ast.AST, ctx: ModuleContext) -> list[str]:
    """Words of the identifiers along `data.X_test.values`, `test_df["text"]`, `x_val.reshape(-1, 1)`
    or `np.asarray(X_test)`."""
    parts = []
    while isinstance(expr, ast.Attribute | ast.Subscript | ast.Call):
        if isinstance(expr, ast.Call) and ctx.call_name(expr) and expr.args:
            expr = expr.args[0]  # a library function: look at the data it is given
        elif isinstance(expr, ast.Call):
            expr = expr.func
        else:
            parts.append(getattr(expr, "attr", ""))
            expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
    split = re.sub(r"([a-z])([A-Z])", r"\1_\2", "_".join(parts)).lower()
    return [w for w in re.split(r"[^a-z]+", split) if w]


class FitTransformOnTest(Rule):
    """What it does: flags `.fit(...)` or `.fit_transform(...)` of a scikit-learn style
    preprocessor (scaler, encoder, imputer, PCA, vectorizer, feature selector) on data named as
    test, validation, hold-out or dev data (X_test, x_val, test_df). Also a `transform(self, x)` method of a class
    with a `fit` that fits on the `x` it is handed (`x_ = s.fit_transform(x_)` for each step): every transform refits.

    Why is this bad: the held-out data gets its own statistics (its own mean, vocabulary, class
    mapping), so it is transformed differently from the data the model learned on, and its own
    values shape the features it is scored on. Scores shift silently; no error is raised.
    """

    code = "MLD052"
    name = "fit-transform-on-test"
    category = "data"
    severity = "error"
    message = "{cls}.{method}({data}) fits the preprocessor on held-out data"
    why = "Held-out data gets its own statistics, so it is scaled or encoded differently from the training data."
    fix = "Fit on the training data once, then call .transform(...) on validation and test data."
    evidence = "lones/leakage-scaling-feature-selection"
    node_types = (ast.Call,)
    requires_text = ('fit',)  # skip modules that cannot contain the pattern
    BAD = (
        "from sklearn.preprocessing import StandardScaler\n"
        "scaler = StandardScaler()\n"
        "def prepare(X_train, X_test):\n"
        "    return scaler.fit_transform(X_train), scaler.fit_transform(X_test)\n"
    )
    GOOD = (
        "from sklearn.preprocessing import StandardScaler\n"
        "scaler = StandardScaler()\n"
        "def prepare(X_train, X_test):\n"
        "    return scaler.fit_transform(X_train), scaler.transform(X_test)\n"
    )

    REFIT = ("{cls}.{method}({data}) fits the preprocessor again on other data after an earlier fit, and it "
             "transforms a further set after: each set gets its own statistics; fit once, then transform")

    REFITS_IN_TRANSFORM = ("{call} fits on the data this transform() is given: every call refits, so validation "
                           "or test data passed through it is scaled with its own statistics, not those fit() learnt")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        cls = preprocessor(node, ctx)
        function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if _refits_in_transform(node, function, ctx):
            yield Hit(node, self.REFITS_IN_TRANSFORM.format(call=ast.unparse(node.func)))
            return
        # in a unit test (def test_...), X_test is test input, not held-out data
        if cls is None or (function is not None and function.name.startswith("test_")):
            return
        for arg in node.args + [k.value for k in node.keywords if k.arg in {"X", "y", "raw_documents"}]:
            found = words(arg, ctx)
            # X_trainval, train_and_test: training data is in there too (a different problem)
            if any(HELD_OUT.fullmatch(w) for w in found) and not any("train" in w for w in found):
                yield Hit(node, self.message.format(cls=cls, method=ctx.method_name(node), data=ast.unparse(arg)))
                return
        if _refit_between(node, ctx):
            yield Hit(node, self.REFIT.format(cls=cls, method=ctx.method_name(node), data=ast.unparse(node.args[0])))


def _refits_in_transform(call: ast.Call, function: ast.AST | None, ctx: ModuleContext) -> bool:
    """`.fit(x)` or `.fit_transform(x)` in the `transform(self, x)` method of a class that also has `fit`, on the
    data transform() was handed (XenonPy's Scaler.transform ran each step's fit_transform; blind split 17)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in FITS and call.args
            and isinstance(function, ast.FunctionDef) and function.name == "transform"):
        return False
    cls = ctx.enclosing_class(function)
    if cls is None or function not in cls.body or not any(
            isinstance(m, ast.FunctionDef) and m.name == "fit" for m in cls.body):
        return False
    given = {a.arg for a in function.args.args[1:]}
    data = call.args[0]
    for _ in range(3):  # `x_ = x` before a loop of steps: the data handed in, under another name
        if isinstance(data, ast.Name) and data.id in given:
            return True
        values = ctx.values_of(data) if isinstance(data, ast.Name) else []
        data = next((v for v in values if isinstance(v, ast.Name)), None)
        if data is None:
            return False
    return False


# the innermost loop or function: the fits and the transform counted are all directly in the same one
_BLOCKS = (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)


def _refit_between(call: ast.Call, ctx: ModuleContext) -> bool:
    """Whatever the data are called: the same preprocessor was fitted on other data earlier in this block and is
    asked to `.transform(...)` a third set later (fit on one set, transform the others, was meant), and the two
    fits are on different rows (not on two columns of one frame, `enc.fit_transform(df["a"])`)."""
    receiver = call.func.value
    if not isinstance(receiver, ast.Name) or not call.args:
        return False
    scope = ctx.scope_of(call)
    same = [c for c in ctx.in_scope(scope, (ast.Call,)) if isinstance(c.func, ast.Attribute)
            and isinstance(c.func.value, ast.Name) and c.func.value.id == receiver.id and c.args]
    owner = ctx.enclosing(call, _BLOCKS)
    same = [c for c in same if ctx.enclosing(c, _BLOCKS) is owner]
    earlier = [c for c in same if c.func.attr in FITS and (c.lineno, c.col_offset) < (call.lineno, call.col_offset)]
    later = [c for c in same if c.func.attr == "transform" and c.lineno > call.lineno]
    if not earlier or not later or _column(call.args[0]) or _column(earlier[-1].args[0]):
        return False
    # the receiver is not rebuilt between the two fits
    rebuilt = any(isinstance(a, ast.Assign) and any(isinstance(t, ast.Name) and t.id == receiver.id for t in a.targets)
                  and earlier[-1].lineno <= a.lineno <= call.lineno for a in ctx.in_scope(scope, (ast.Assign,)))
    return not rebuilt and ast.dump(earlier[-1].args[0]) != ast.dump(call.args[0])


def _column(expr: ast.expr) -> bool:
    """`df["age"]`, `df[["a", "b"]]`: columns of one frame."""
    return isinstance(expr, ast.Subscript) and any(isinstance(n, ast.Constant) and isinstance(n.value, str)
                                                   for n in ast.walk(expr.slice))
