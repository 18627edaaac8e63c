import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import preprocessor
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
    test, validation, hold-out or dev data (X_test, x_val, test_df).

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

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        cls = preprocessor(node, ctx)
        function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        # in a unit test (def test_...), X_test is test input, not held-out data
        if cls is None or (function is not None and function.name.startswith("test_")):
            return
        for arg in node.args + [k.value for k in node.keywords if k.arg in {"X", "y", "raw_documents"}]:
            found = words(arg, ctx)
            # X_trainval, train_and_test: training data is in there too (a different problem)
            if any(HELD_OUT.fullmatch(w) for w in found) and not any("train" in w for w in found):
                yield Hit(node, self.message.format(cls=cls, method=ctx.method_name(node), data=ast.unparse(arg)))
                return
