"""Data loading and preprocessing: DataLoader names, what a loader or dataset is called, and scikit-learn
style preprocessors (MLD050-MLD054)."""

import ast
import re

from ..context import ModuleContext

DATALOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
NOT_TRAINING = re.compile(r"val|test|eval")
# a name for evaluation data as a word of it: `test_loader`, `loader_val`, `self.valid_dl`, `testset`, `eval_ds`
EVALUATION_NAME = re.compile(r"(?:^|[._])(test|val|valid|validation|eval|evaluation|dev)"
                             r"(?:$|[._]|s?et|_?data|_?ds|loader|dl)", re.IGNORECASE)


def name_of(expr: ast.AST | None) -> str:
    """Identifiers along an expression: `self.train_set` -> 'self.train_set', `ds["train"]` ->
    'ds.train', `torch.as_tensor(X_train).float()` -> 'torch.as_tensor.X_train.float'."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Attribute):
        return f"{name_of(expr.value)}.{expr.attr}"
    if isinstance(expr, ast.Subscript):
        return f"{name_of(expr.value)}.{name_of(expr.slice)}"
    if isinstance(expr, ast.Call):  # a call's name plus its first argument's
        return ".".join([name_of(expr.func)] + [name_of(a) for a in expr.args[:1]])
    return ""


PREPROCESSING_MODULES = tuple(f"sklearn.{m}." for m in (
    "preprocessing", "decomposition", "feature_extraction", "impute", "feature_selection", "pipeline", "compose"))
# the same classes under other libraries (cuml, dask_ml) when imported by name
KNOWN = {"StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler", "LabelEncoder", "OneHotEncoder",
         "OrdinalEncoder", "PCA", "TfidfVectorizer", "CountVectorizer", "SimpleImputer", "SelectKBest"}
# fit() learns nothing from the values (row-wise or fixed maps): fitting these anywhere is harmless
STATELESS = {"Normalizer", "Binarizer", "FunctionTransformer", "HashingVectorizer", "FeatureHasher",
             "PolynomialFeatures"}
FITS = {"fit", "fit_transform"}
# a pipeline or column transformer learns what its steps learn
PIPELINE_BUILDERS = {"sklearn.pipeline.make_pipeline", "sklearn.pipeline.make_union",
                     "sklearn.compose.make_column_transformer"}
# a preprocessor handed in or built by a helper (`self.preprocessor.fit(X)`, `get_scaler()`), told by its name
PREPROCESSOR_WORDS = re.compile(r"preprocess|scaler|normali[sz]er|imputer|pipeline|vectori[sz]er|pca")


def preprocessor(call: ast.AST, ctx: ModuleContext) -> str | None:
    """'StandardScaler' when `call` is `<preprocessor>.fit(...)`/`.fit_transform(...)` on a
    stateful scikit-learn style preprocessor (built inline or held in a variable)."""
    if ctx.method_name(call) not in FITS:
        return None
    receiver = call.func.value
    name = ctx.call_name(receiver) if isinstance(receiver, ast.Call) else ctx.constructed(receiver)
    return _preprocessor_class(name) or _built_by_helper(name, ctx)


def _preprocessor_class(name: str | None) -> str | None:
    """The short class name when `name` builds a stateful preprocessor (or a pipeline of them)."""
    short = (name or "").rsplit(".", 1)[-1]
    if name in PIPELINE_BUILDERS:
        return short
    if not short[:1].isupper() or short in STATELESS:
        return None
    return short if name.startswith(PREPROCESSING_MODULES) or ("." in name and short in KNOWN) else None


def _built_by_helper(name: str | None, ctx: ModuleContext) -> str | None:
    """`pre = build_preprocessor()`: a function of this file that returns a preprocessor it builds, or one of
    another file named for what it builds (fit and fit_transform are the scikit-learn protocol, so a model's
    builder named so is not taken for one)."""
    short = (name or "").rsplit(".", 1)[-1]
    if not short or short[:1].isupper():
        return None
    function = ctx.functions.get(short) if name == short else None
    if function is not None:
        built = [_preprocessor_class(ctx.call_name(value)) for value in ctx.returns.get(function, ())
                 if isinstance(value, ast.Call)]
        return next((b for b in built if b), None)
    return f"{short}()" if PREPROCESSOR_WORDS.search(short.lower()) else None


# a name's words: `self.trainData` -> train, data; `X_test` -> x, test
WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
TRAIN_WORDS = {"train", "training", "tr", "trn"}
HELD_OUT_WORDS = {"val", "valid", "validation", "test", "testing", "dev", "eval", "holdout", "te", "tst"}
ADDERS = {"append", "extend", "add"}
ARRAY_SPLITS = {"numpy.split", "numpy.array_split", "torch.split", "torch.tensor_split"}


def _split_word(target: ast.AST) -> str | None:
    """'train' or 'held out' when the innermost name of an assignment target or container says so."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return part_named(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))


def part_named(name: str) -> str | None:
    """'train' or 'held out' when a name's words say so (`self.trainData`, `X_test`, `"test"`)."""
    words = {w.lower() for w in WORDS.findall(name)}
    return "train" if words & TRAIN_WORDS else "held out" if words & HELD_OUT_WORDS else None


def _mentions(expr: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr))


def split_by_hand(scope: ast.AST, data: set[str], after: int, ctx: ModuleContext) -> bool:
    """Whether, after line `after`, the function cuts the variables `data` into a training part and a
    held-out part by hand: `train = data[:n]` / `self.testData = data[b:e]`, a cut under `if mode == 'test':`
    whatever it is called, `train, test = np.split(data, [n])`, or a loop over the data appending to `X_train`
    and `X_test` (both parts must appear; a train part alone is no split)."""
    data = set(data)
    for call in ctx.in_scope(scope, (ast.Call,)):  # windows cut from the data: `X.append(values[i:i + n])`
        if call.lineno > after and ctx.method_name(call) in ADDERS and isinstance(call.func.value, ast.Name) \
                and any(_mentions(a, data) for a in call.args):
            data.add(call.func.value.id)
    rows = set(data)
    for loop in ctx.in_scope(scope, (ast.For,)):  # loop variables over the data are its rows
        if loop.lineno > after and _mentions(loop.iter, data):
            rows |= {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
            if _cross_validation(loop, data, ctx):
                return True
    if _complementary_slices(scope, data, after, ctx):
        return True
    parts = set()
    for node in ctx.in_scope(scope, (ast.Assign, ast.Call)):
        if node.lineno <= after:
            continue
        if isinstance(node, ast.Assign):
            parts |= {_split_word(t) or _index_word(v) or _branch_word(node, ctx) for t, v in _pairs(node)
                      if _slice_of(v, data)}
            if isinstance(node.value, ast.Call) and ctx.call_name(node.value) in ARRAY_SPLITS and node.value.args \
                    and _mentions(node.value.args[0], data):  # train, val, test = np.split(data, [a, b])
                parts |= {_split_word(n) for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Call) and ctx.method_name(node) in ADDERS \
                and any(_mentions(a, rows) for a in node.args):
            parts.add(_split_word(node.func.value))
    return {"train", "held out"} <= parts


def _branch_word(node: ast.AST, ctx: ModuleContext) -> str | None:
    """The part the `if` around a cut names by value: `if self.flag == 'test': self.part = data[b:e]`."""
    child = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        test = ancestor.test if isinstance(ancestor, ast.If) and child in ancestor.body else None
        child = ancestor
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
                and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, str):
            return part_named(test.comparators[0].value)
    return None


def _pairs(assign: ast.Assign) -> list[tuple[ast.AST, ast.AST]]:
    """(target, value) pairs: `a, b = x[:n], x[n:]` pairs element-wise."""
    pairs = []
    for target in assign.targets:
        if isinstance(target, ast.Tuple) and isinstance(assign.value, ast.Tuple) \
                and len(target.elts) == len(assign.value.elts):
            pairs += zip(target.elts, assign.value.elts)
        else:
            pairs.append((target, assign.value))
    return pairs


def _index_word(value: ast.Subscript) -> str | None:
    """The part an index names: `X[test_idx]` -> 'held out'."""
    words = {_split_word(n) for n in ast.walk(value.slice) if isinstance(n, ast.Name)} - {None}
    return words.pop() if len(words) == 1 else None


def _slice_of(value: ast.AST, data: set[str]) -> bool:
    return isinstance(value, ast.Subscript) and _mentions(value.value, data)


def rows_part(expr: ast.AST) -> bool:
    """Whether `expr` selects some rows only: `data[:n]`, `X[b:e, :]`, `X[train_idx]`; not `df[cols]`
    or `X[:, 0]`, which keep every row."""
    for node in ast.walk(expr):
        if not isinstance(node, ast.Subscript):
            continue
        first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        if isinstance(first, ast.Slice) and (first.lower or first.upper):
            return True
        if any(_split_word(n) == "train" for n in ast.walk(node.slice) if isinstance(n, ast.Name)):
            return True
    return False


def _cross_validation(loop: ast.For, data: set[str], ctx: ModuleContext) -> bool:
    """`for train_idx, test_idx in KFold(5).split(X)`: the folds split the data."""
    source = loop.iter
    return isinstance(source, ast.Call) and ctx.method_name(source) == "split" and isinstance(loop.target, ast.Tuple) \
        and len(loop.target.elts) == 2 and any(_mentions(a, data) for a in source.args)


def _complementary_slices(scope: ast.AST, data: set[str], after: int, ctx: ModuleContext) -> bool:
    """`X[:n_train]` and `X[n_train:]` of the data: a cut into two parts, however they are named."""
    uppers, lowers = set(), set()
    for node in ctx.in_scope(scope, (ast.Subscript,)):
        if node.lineno <= after or not isinstance(node.value, ast.Name) or node.value.id not in data:
            continue
        cut = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        if isinstance(cut, ast.Slice) and cut.lower is None and cut.upper is not None:
            uppers.add(ast.unparse(cut.upper))
        elif isinstance(cut, ast.Slice) and cut.lower is not None and cut.upper is None:
            lowers.add(ast.unparse(cut.lower))
    return any(_names_a_split(bound) for bound in uppers & lowers)


SPLIT_BOUND_WORDS = TRAIN_WORDS | HELD_OUT_WORDS | {"split", "cut", "ratio", "frac", "fraction", "border"}


def _names_a_split(bound: str) -> bool:
    """`n_train`, `int(len(X) * train_ratio)`, `split_at`: a bound named for a split (not `seq_len`)."""
    return any(w.lower() in SPLIT_BOUND_WORDS for w in WORDS.findall(bound))


CENTRES = {"mean", "min", "median", "nanmean", "nanmin"}
SPREADS = {"std", "max", "var", "nanstd", "nanmax"}


def column_statistics(node: ast.AST) -> str | None:
    """The data a hand-written normalisation takes its statistics from, over all rows: `(X - X.mean(0)) /
    X.std(0)`, `(df - df.min()) / (df.max() - df.min())`; None for per-row statistics (`dim=-1`, `axis=1`)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.left, ast.BinOp)
            and isinstance(node.left.op, ast.Sub)):
        return None
    centre = _statistic(node.left.right, CENTRES)
    spread = next((s for n in ast.walk(node.right) if (s := _statistic(n, SPREADS))), None)
    data = _data_name(node.left.left)
    return data if data is not None and centre == data and spread == data else None


def _statistic(expr: ast.AST, methods: set[str]) -> str | None:
    """'X' for `X.mean(0)` / `X.mean(axis=0)` / `X.mean()` / `np.mean(X, axis=0)` (a reduction over the rows)."""
    if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute) or expr.func.attr not in methods:
        return None
    receiver = expr.func.value
    args = list(expr.args)
    if isinstance(receiver, ast.Name) and receiver.id in {"np", "numpy", "torch"} and args:
        receiver, args = args[0], args[1:]  # np.mean(X, axis=0)
    axis = next((k.value for k in expr.keywords if k.arg in {"axis", "dim"}), args[0] if args else None)
    if axis is not None and not (isinstance(axis, ast.Constant) and axis.value == 0):
        return None  # per-row, or over an unknown axis
    return _data_name(receiver)


def _data_name(expr: ast.AST) -> str | None:
    while isinstance(expr, ast.Subscript | ast.Attribute) and not (
            isinstance(expr, ast.Attribute) and expr.attr in {"values"}):
        expr = expr.value
    if isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None
