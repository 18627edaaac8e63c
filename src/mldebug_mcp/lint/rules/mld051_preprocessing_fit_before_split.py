import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import (
    FITS,
    column_statistics,
    preprocessor,
    rows_part,
    split_by_hand,
)
from ..helpers.data_fit_calls import LABEL_ENCODERS, fitted_arguments
from ..helpers.data_handoff import SPLITS, handed_to_a_splitter, split_elsewhere
from ..helpers.data_pooled import pooled_statistics
from ..rule import Hit, Rule


def root_name(expr: ast.AST, ctx: ModuleContext) -> str | None:
    """The variable data comes from: `df[cols].values` -> 'df'; `np.asarray(X)` -> 'X'."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute | ast.Subscript):
        return root_name(expr.value, ctx)
    if isinstance(expr, ast.Call):
        if ctx.call_name(expr) is None and isinstance(expr.func, ast.Attribute):
            return root_name(expr.func.value, ctx)  # a method: df.fillna(0)
        return root_name(expr.args[0], ctx) if expr.args else None
    return None


def _names_in(nodes: list[ast.AST]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


# encoders that only learn the set of categories; fitted on the labels they learn the class names, which a test
# row cannot make optimistic
CATEGORY_ENCODERS = {"OneHotEncoder", "OrdinalEncoder"}
LABELS = re.compile(r"^(y|Y|labels?|targets?|classes)$")


class PreprocessingFitBeforeSplit(Rule):
    """What it does: flags a scaler, imputer, encoder (not a label encoder, nor a one-hot or ordinal encoder of the
    labels `y`, which learns only the class names), PCA, vectorizer or feature selector (or a
    hand-written normalisation by column statistics, `(X - X.mean(0)) / X.std(0)`) that is fitted on a
    variable which a later train_test_split/random_split in the same function splits
    (directly or through variables computed from the fitted output), or which the function later
    cuts by hand into training and held-out parts (slices such as `self.train = data[:n]` and
    `self.test = data[n:]`, or a loop appending rows to `X_train` and `X_test`); also a fit inside a
    function or method whose result a caller of this file splits (directly or through a function it
    hands the data to), and a fit into self's data that another method of the class splits; and a call of
    a helper of this file (or method of the class) that learns statistics from its argument (`mean` with
    `std`, `min` with `max`, or a helper it calls fits it) whose result this function then splits.
    A feature pipeline or transformer this file does not build (`self.extraction_pipeline.fit_transform`)
    counts by its name, and a method of this file that hands its arguments to train_test_split as a split.
    Scikit-learn pipelines and column transformers count as preprocessors, and so does an object built by a
    helper: a function of this file that returns one, or one of another file named for one (`build_preprocessor()`).

    Why is this bad: the fitted statistics (means, ranges, vocabularies, selected features) were
    computed with the rows that later become the test set, so test information leaks into
    training and the held-out score is optimistic; nothing errors.
    """

    code = "MLD051"
    name = "preprocessing-fit-before-split"
    category = "data"
    severity = "error"
    message = "{cls} fitted on '{data}' before it is split: test rows shape the training features"
    why = "Statistics learned from the whole data set include the test rows, so the test score is optimistic."
    fix = "Split first, fit the preprocessor on the training part only, then transform every split (or use a Pipeline)."
    evidence = "lones/leakage-scaling-feature-selection"
    node_types = (ast.Call, ast.BinOp)
    call_names = FITS  # the calls preprocessor reads: x.fit(...), x.fit_transform(...)
    requires_text = ('fit', 'mean', 'min(')  # skip modules that cannot contain the pattern
    BAD = (
        "from sklearn.model_selection import train_test_split\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "def prepare(X, y):\n"
        "    X = StandardScaler().fit_transform(X)\n"
        "    return train_test_split(X, y, test_size=0.2)\n"
    )
    GOOD = (
        "from sklearn.model_selection import train_test_split\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "def prepare(X, y):\n"
        "    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)\n"
        "    scaler = StandardScaler().fit(X_train)\n"
        "    return scaler.transform(X_train), scaler.transform(X_test), y_train, y_test\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node, ast.BinOp):  # (X - X.mean(0)) / X.std(0): statistics of every row, by hand
            cls, data = "normalisation statistics", column_statistics(node)
            if data is None or not isinstance(ctx.parent(node), ast.Assign):
                return
        else:
            cls = preprocessor(node, ctx) or _learned_transform(node, ctx)
            if cls is None or cls in LABEL_ENCODERS or not node.args:
                return
            data = root_name(node.args[0], ctx)
            if cls in CATEGORY_ENCODERS and LABELS.match(data or ""):
                return  # `OneHotEncoder().fit_transform(y.reshape(-1, 1))`: the class names, no statistic (dgl's bgrl)
        fitted = node.args[0] if isinstance(node, ast.Call) else node.left.left
        scope = ctx.scope_of(node)
        splits = [c for c in ctx.in_scope(scope, (ast.Call,)) if ctx.call_name(c) in SPLITS or _wraps_split(c, ctx)]
        earlier = [s for s in splits if s.lineno < node.lineno]
        # fitted on the training part: named so, or produced by an earlier split
        if not data or "train" in data.lower() or data in _split_outputs(earlier, ctx) or rows_part(fitted):
            return
        tainted = _derived(node, data, scope, ctx)
        if split_by_hand(scope, tainted, node.end_lineno, ctx):
            yield Hit(node, self.message.format(cls=cls, data=_shown(fitted, data)))
            return
        if not splits and split_elsewhere(node, tainted, scope, ctx):
            # fitted here on every row, split by the caller (or by another method of the class)
            yield Hit(node, self.message.format(cls=cls, data=_shown(fitted, data)))
            return
        for split in splits:
            # the arrays split: train_test_split(*arrays, ...), random_split(dataset, lengths)
            arrays = split.args if "train_test_split" in (ctx.call_name(split) or "train_test_split") else split.args[:1]
            arrays += [k.value for k in split.keywords if k.arg == "dataset"]
            inside = any(n is node for arg in arrays for n in ast.walk(arg))
            if inside or (split.lineno > node.end_lineno and _names_in(arrays) & tainted):
                yield Hit(node, self.message.format(cls=cls, data=_shown(fitted, data)))
                return


    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        """`data, scaler = normalize_dataset(data)` / `parts = self.prep_input(X)`: a local helper learns
        statistics from the data it is handed (or hands it to one that does), and this function splits
        what comes back. Also statistics of the training and test parts pooled (`np.mean(np.concatenate([train,
        test]))`) that then normalise."""
        for stat, pooled in pooled_statistics(ctx):
            yield Hit(stat, POOLED.format(pooled=pooled if len(pooled) <= 60 else pooled[:57] + "..."))
        if not ctx.functions and not ctx.classes:
            return
        for statement in ctx.by_type.get(ast.Assign, ()):
            call = statement.value
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name | ast.Attribute):
                continue
            if isinstance(call.func, ast.Attribute) and not (isinstance(call.func.value, ast.Name)
                                                              and call.func.value.id == "self"):
                continue  # only local functions and methods of the same class
            given = fitted_arguments(call, ctx)
            data = next((root_name(a, ctx) for a in given if root_name(a, ctx)), None)
            if data is None or "train" in data.lower() or any(rows_part(a) for a in given):
                continue
            scope = ctx.scope_of(call)
            outputs = {n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            tainted = outputs | _derived_after(outputs, call.lineno, scope, ctx)
            splits = [c for c in ctx.in_scope(scope, (ast.Call,)) if ctx.call_name(c) in SPLITS
                      and c.lineno > call.lineno and _names_in(c.args[:2]) & tainted]
            if splits or split_by_hand(scope, tainted, call.end_lineno, ctx) \
                    or handed_to_a_splitter(scope, tainted, call.end_lineno, ctx):
                yield Hit(call, self.message.format(cls=f"{ast.unparse(call.func)}() (statistics of its input)",
                                                    data=data))


def _learned_transform(call: ast.Call, ctx: ModuleContext) -> str | None:
    """`self.extraction_pipeline.fit_transform(items)`: a fit_transform on an object this file does not build,
    named as a feature pipeline or transformer (fit_transform is the scikit-learn transformer protocol)."""
    if ctx.method_name(call) != "fit_transform" or ctx.call_name(call) is not None:
        return None
    receiver = call.func.value
    name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    if not TRANSFORMER_WORDS.search(name.lower()) or ctx.constructed(receiver):
        return None  # a transformer built here is judged by its class (preprocessor)
    args = call.args[:1]
    return None if args and TARGETS.search((root_name(args[0], ctx) or "").lower()) else ast.unparse(receiver)


def _wraps_split(call: ast.Call, ctx: ModuleContext) -> bool:
    """`self.train_test_split(X, y)`: a method or function of this file that hands its arguments to a split."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
        func.value.id == "self" else func.id if isinstance(func, ast.Name) else None
    if name is None or ctx.call_name(call) in SPLITS:
        return False
    def compute() -> frozenset[str]:
        found = set()
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            for function in ctx.by_type.get(kind, ()):
                params = {a.arg for a in function.args.args}
                if any(ctx.call_name(c) in SPLITS and _names_in(c.args) & params
                       for c in ctx.in_scope(function, (ast.Call,))):
                    found.add(function.name)
        return frozenset(found)
    return name in ctx.memo(("mld051", "split-wrappers"), compute)


POOLED = ("normalisation statistics learned from '{pooled}', which pools the training rows with held-out ones: "
          "test rows shape the training features; compute them on the training part only")
TRANSFORMER_WORDS = re.compile(r"pipeline|vectori[sz]er|scaler|normali[sz]er|imputer|extractor|selector|transformer|pca|tfidf")
TARGETS = re.compile(r"^(y|labels?|targets?|classes)$")


def _derived_after(names: set[str], line: int, scope: ast.AST, ctx: ModuleContext) -> set[str]:
    """Names assigned after `line` from expressions that use `names` (`df = pd.concat([df_num, y])`)."""
    tainted, bindings = set(names), ctx.bindings.get(scope, {})
    changed = True
    while changed:
        changed = False
        for name, values in bindings.items():
            if name not in tainted and _names_in([v for v in values if v.lineno > line]) & tainted:
                tainted.add(name)
                changed = True
    return tainted


def _shown(fitted: ast.expr, data: str) -> str:
    """What the message names: the variable, or `self.data` rather than `self`."""
    text = ast.unparse(fitted)
    return text if data == "self" and len(text) <= 40 else data


def _split_outputs(splits: list[ast.Call], ctx: ModuleContext) -> set[str]:
    statements = [ctx.parent(s) for s in splits]
    return _names_in([t for s in statements if isinstance(s, ast.Assign) for t in s.targets])


def _derived(fit: ast.Call, data: str, scope: ast.AST, ctx: ModuleContext) -> set[str]:
    """Names holding the fitted data after the fit: the fitted variable for `.fit(X)`, the
    assigned result for `X2 = ....fit_transform(X)`, and what is later computed from them."""
    tainted = {data} if ctx.method_name(fit) == "fit" else set()
    statement = ctx.enclosing(fit, (ast.stmt,))
    if isinstance(statement, ast.Assign):
        tainted |= {root_name(t, ctx) for t in statement.targets} - {None}
    bindings = ctx.bindings.get(scope, {})
    changed = True
    while changed:
        changed = False
        for name, values in bindings.items():
            later = [v for v in values if v.lineno > fit.lineno]
            if name not in tainted and _names_in(later) & tainted:
                tainted.add(name)
                changed = True
    return tainted
