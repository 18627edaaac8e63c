import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.reference_tests import reference_test_module
from ..rule import Hit, Rule

SPREADS = {"torch.std", "torch.norm", "torch.linalg.norm", "torch.linalg.vector_norm"}
SPREAD_METHODS = {"std", "norm"}
VARIANCES = {"torch.var"}
# these keep the value, so `x.norm(dim=1, keepdim=True).detach()` is still an unguarded norm
DIVISIONS = {"torch.div", "torch.divide", "torch.true_divide"}
DIVIDE_METHODS = {"div", "div_", "divide", "true_divide", "true_divide_"}
PASS_THROUGH = {"detach", "expand_as", "expand", "unsqueeze", "view", "reshape", "to", "float"}
FINITE_CHECKING = ("scipy.cluster.", "scipy.spatial.", "sklearn.")
TABLE_INDEXERS = {"loc", "iloc"}
# libraries whose loaders hand back a table (a DataFrame): df["age"].std() is one named column of it
TABLE_LIBRARIES = ("pandas.", "polars.", "lifelines.", "seaborn.", "statsmodels.", "sklearn.datasets.")


class DivideByStdWithoutEps(Rule):
    """What it does: flags a division (`/`, `/=`, torch.div, torch.true_divide, `.div(...)`) whose
    denominator is a standard deviation or a norm
    (`x.std()`, `torch.std`, `x.norm()`, `torch.linalg.norm`, `x.var().sqrt()`,
    `torch.sqrt(var)`, or a name assigned from one) with no `+ eps`, clamp or `max(..., eps)`.
    A norm counts only when its vector can be exactly zero: a gradient, or the difference of two
    values (`(p1 - p0).norm()`); unit-normalising embeddings or latents is quiet. Test modules
    that step no optimiser (metrics, reference checks) are quiet, as is a quotient handed straight to
    a SciPy/scikit-learn routine that rejects non-finite input (k-means whitening).
    Guarded denominators, `F.normalize`, and divisions under an `if` or `torch.where` that tests
    the denominator, or after the name was patched in place (`std[std == 0] = 1`), are quiet.

    Why is this bad: the code works until a constant feature, a batch of identical rewards or
    advantages, or an all-zero vector appears; then it divides by zero and the inf/NaN spreads
    through the loss and the weights with no error at this line. Reported as info (hygiene): the failure needs
    an exactly zero spread, which real data rarely give; the judges of the precision samples called 4 of 39
    sampled findings on real projects a bug (`python benchmarks/lint_precision_report.py`).
    """

    code = "MLD062"
    name = "divide-by-std-without-eps"
    category = "numerics"
    severity = "info"
    message = "division by a {what} with no eps: a constant or all-zero input divides by zero"
    why = "A std or norm of zero (constant feature, identical advantages, zero vector) turns the result into inf/NaN."
    fix = "Divide by (s + 1e-8) or s.clamp(min=1e-8); for unit vectors use F.normalize(x, dim=...)."
    evidence = "fsdl"
    node_types = (ast.BinOp, ast.AugAssign, ast.Call)
    call_names = frozenset({n.rsplit(".", 1)[-1] for n in DIVISIONS} | DIVIDE_METHODS)  # the calls _divisor reads
    requires_text = ('std', 'norm', 'var', 'sqrt')  # skip modules that cannot contain the pattern
    BAD = "def whiten(adv):\n    return (adv - adv.mean()) / adv.std()\n"
    GOOD = "def whiten(adv):\n    return (adv - adv.mean()) / (adv.std() + 1e-8)\n"

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node, ast.Call):
            denominator = _divisor(node, ctx)
            if denominator is None:
                return
        elif not isinstance(node.op, ast.Div):
            return
        else:
            denominator = node.right if isinstance(node, ast.BinOp) else node.value
        what = _spread(denominator, ctx)
        if what is None and isinstance(denominator, ast.Name):
            values = ctx.values_of(denominator, at=node)
            spread = _spread(values[0], ctx) if values else None  # first: _patched walks the statements between
            if spread and not _patched(denominator.id, values[0], node, ctx):
                what = spread
        # asked last (of the few divisions by a spread): a test's metric or recomputed formula, where a NaN fails
        # the test and no model is trained
        if what and not _tested(denominator, node, ctx) and not _checked_finite(node, ctx) \
                and not _kernel_bandwidth(node, ctx) and not reference_test_module(ctx):
            yield Hit(denominator, self.message.format(what=what))


def _kernel_bandwidth(division: ast.AST, ctx: ModuleContext) -> bool:
    """`np.exp(-np.square(dist / std))`: the std of all pairwise distances is a Gaussian kernel's bandwidth (the
    traffic-graph adjacency of DCRNN and the projects built on it), zero only if every distance is the same."""
    for ancestor in ctx.ancestors(division):
        if isinstance(ancestor, ast.stmt):
            return False
        if isinstance(ancestor, ast.Call) and ancestor.args and (
                (ctx.call_name(ancestor) or "").rsplit(".", 1)[-1] == "exp"
                or ctx.call_name(ancestor) is None and ctx.method_name(ancestor) == "exp"):
            return any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) for n in ast.walk(ancestor.args[0]))
    return False


def _checked_finite(division: ast.AST, ctx: ModuleContext) -> bool:
    """`kmeans(wh / wh.std(0), n)`: the quotient goes straight into a SciPy or scikit-learn routine, which checks
    its input is finite and raises on a NaN or inf (check_finite, check_array): a zero std fails loudly there."""
    call = ctx.parent(division)
    if not isinstance(call, ast.Call) or division not in call.args:
        return False
    name = ctx.call_name(call) or ""
    if name.startswith(FINITE_CHECKING):
        return True
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    return receiver is not None and (ctx.constructed(receiver) or "").startswith(FINITE_CHECKING)


def _divisor(call: ast.Call, ctx: ModuleContext) -> ast.expr | None:
    """The divisor of `torch.div(a, b)` / `torch.true_divide(a, b)` / `a.div(b)` / `a.div_(b)` (no rounding mode)."""
    if any(k.arg == "rounding_mode" for k in call.keywords):
        return None
    if ctx.call_name(call) in DIVISIONS and len(call.args) == 2:
        return call.args[1]
    if ctx.call_name(call) is None and ctx.method_name(call) in DIVIDE_METHODS and len(call.args) == 1:
        return call.args[0]
    return None


def _spread(expr: ast.expr, ctx: ModuleContext) -> str | None:
    while isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) in PASS_THROUGH:
        expr = expr.func.value
    if not isinstance(expr, ast.Call):
        return None  # `s + eps`, a constant, or an unknown name
    name, method = ctx.call_name(expr), ctx.method_name(expr)
    if name in SPREADS or (name is None and method in SPREAD_METHODS and _tensor_method(expr)
                           and not _table_column(expr.func.value, ctx)):
        if "norm" not in (name or method):
            return None if _per_channel_of_dataset(expr, name, ctx) or _whole_training_split(expr, ctx) else "std"
        normed = expr.func.value if name is None else (expr.args[0] if expr.args else None)
        return "norm" if normed is not None and _may_be_zero_vector(normed, ctx) else None
    if name == "torch.sqrt" and expr.args:
        inner = expr.args[0]
    elif name is None and method == "sqrt" and not expr.args:
        inner = expr.func.value
    else:
        return None
    if isinstance(inner, ast.Name):
        values = ctx.values_of(inner, at=expr)
        inner = values[0] if values else inner
    return "sqrt of a variance" if _is_variance(inner, ctx) else None


def _per_channel_of_dataset(std: ast.Call, name: str | None, ctx: ModuleContext) -> bool:
    """`x_train.std(dim=(0, 1))`, `torch.std(images, dim=(0, 2, 3))` outside a forward: per-channel statistics over
    the samples and every position of a dataset, zero only for a channel constant across all of it (a dead
    sensor); the tensor analogue of a table column's std. One axis (`x.std(0)`: per pixel, MNIST's borders are
    constant) or a forward's batch statistics (a hand-written norm layer) still count."""
    given = [k.value for k in std.keywords if k.arg in {"dim", "axis"}] or std.args[1 if name else 0:][:1]
    axes = given[0].elts if given and isinstance(given[0], ast.Tuple | ast.List) else []
    numbers = [a.value for a in axes if isinstance(a, ast.Constant) and type(a.value) is int]
    if len(numbers) < 2 or len(numbers) != len(axes) or 0 not in numbers:
        return False
    func = ctx.enclosing(std, (ast.FunctionDef, ast.AsyncFunctionDef))
    return func is None or func.name != "forward"


SPLIT_NAMES = {"train", "training"}


def _whole_training_split(std: ast.Call, ctx: ModuleContext) -> bool:
    """`self.y['train'].std()`: one number over every value of a stored training split (standardising regression
    targets, tabular-dl-revisiting-models in blind split 14), outside a forward. It is zero only when the whole split
    holds one value, unlike a batch, a vector of advantages or a per-feature std (`x['train'].std(0)`)."""
    if std.args or std.keywords or not isinstance(std.func, ast.Attribute):
        return False
    split = std.func.value
    if not (isinstance(split, ast.Subscript) and isinstance(split.slice, ast.Constant)
            and split.slice.value in SPLIT_NAMES):
        return False
    func = ctx.enclosing(std, (ast.FunctionDef, ast.AsyncFunctionDef))
    return func is None or func.name != "forward"


def _may_be_zero_vector(expr: ast.expr, ctx: ModuleContext) -> bool:
    """A norm is zero only for the exact zero vector, unlike a std (zero for any constant input). Model
    embeddings, predictions and Gaussian latents are never exactly zero, so `e / e.norm(dim=-1)` (CLIP
    features, slerp, a CFG rescale) is the usual unit-vector idiom. Exact zeros come from a gradient
    (`p.grad`, a frozen or unused weight) or from the difference of two data values that may coincide
    (`(p1 - p0).norm()`: duplicate points); a projection residual `b - d * a` is not such a difference."""
    if isinstance(expr, ast.Name):
        values = ctx.values_of(expr, at=expr)
        expr = values[0] if values else expr
    while isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) in PASS_THROUGH:
        expr = expr.func.value
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub):
        return not any(isinstance(side, ast.BinOp) and isinstance(side.op, ast.Mult)
                       for side in (expr.left, expr.right))
    return any(isinstance(node, ast.Attribute) and node.attr == "grad" for node in ast.walk(expr))


def _tensor_method(call: ast.Call) -> bool:
    """x.norm(2, dim=1) is a tensor's norm; self.norm(x) is a LayerNorm submodule being called."""
    if isinstance(call.func.value, ast.Name) and call.func.value.id == "self":
        return False
    return not call.args or isinstance(call.args[0], ast.Constant) or call.func.attr != "norm"


def _table_column(expr: ast.expr, ctx: ModuleContext) -> bool:
    """`lung["age"].std()` where `lung = load_lung().dropna()` or `pd.read_csv(...)`: one column, named by the
    author, of a table a dataframe library loaded. A chosen feature of a fixed dataset, not a batch or a
    vector that may come out constant (a dict of tensors, `batch["adv"]`, is not a table and still counts)."""
    if isinstance(expr, ast.Name):
        expr = ctx.resolve(expr)
    if not isinstance(expr, ast.Subscript):
        return False
    if isinstance(expr.value, ast.Attribute) and expr.value.attr in TABLE_INDEXERS:
        return True  # `df.loc[df.kind == k, "value"]`: only a DataFrame or Series has .loc/.iloc
    if not (isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str)):
        return False
    table = ctx.resolve(expr.value)
    for _ in range(4):  # through .dropna(), .copy(), .reset_index(), ...
        if not isinstance(table, ast.Call):
            return False
        name = ctx.call_name(table)
        if name is not None:
            return name.startswith(TABLE_LIBRARIES)
        if not isinstance(table.func, ast.Attribute):
            return False
        table = ctx.resolve(table.func.value)
    return False


def _is_variance(expr: ast.expr, ctx: ModuleContext) -> bool:
    """x.var(...), torch.var(x), or a mean of squares (x ** 2).mean() / x.pow(2).mean()."""
    if not isinstance(expr, ast.Call):
        return False
    name, method = ctx.call_name(expr), ctx.method_name(expr)
    if name in VARIANCES or (name is None and method == "var"):
        return True
    if name is None and method == "mean":
        squared = expr.func.value
        if isinstance(squared, ast.BinOp) and isinstance(squared.op, ast.Pow):
            return isinstance(squared.right, ast.Constant) and squared.right.value == 2
        exponent = squared.args[0] if ctx.method_name(squared) == "pow" and squared.args else None
        return isinstance(exponent, ast.Constant) and exponent.value == 2
    return False


def _patched(name: str, value: ast.expr, use: ast.AST, ctx: ModuleContext) -> bool:
    """`std[std == 0] = 1`, `std += eps`, `std.clamp_(min=eps)` or a test of std between assignment and use."""
    scope = ctx.scope_of(use)
    body = scope.body if isinstance(scope, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef) else []
    for stmt in body:
        if stmt.end_lineno < value.lineno or stmt.lineno >= use.lineno:
            continue  # only the statements between the assignment and the division are walked
        for node in ast.walk(stmt):
            if not value.lineno <= getattr(node, "lineno", 0) < use.lineno:
                continue
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and _is_name(node.value, name):
                return True
            if isinstance(node, ast.AugAssign) and _is_name(node.target, name):
                return True
            # an early exit or assert on the value: `if std == 0: return x`, `assert std > 0`
            if isinstance(node, ast.If | ast.While | ast.Assert) and \
                    any(_is_name(n, name) for n in ast.walk(node.test)):
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr.endswith("_") and _is_name(node.func.value, name):
                return True
    return False


def _tested(denominator: ast.expr, division: ast.AST, ctx: ModuleContext) -> bool:
    """Inside `if s > 0:`, `x / s if s > 0 else x` or `torch.where(s > 0, x / s, x)`, also when the denominator
    reshapes the tested value (`torch.where((x.std(dim) > 0).unsqueeze(-1), (x - m) / x.std(dim).unsqueeze(-1), ...)`,
    transformers-lightning)."""
    core = denominator
    while isinstance(core, ast.Call) and isinstance(core.func, ast.Attribute) and core.func.attr in PASS_THROUGH:
        core = core.func.value
    targets = {ast.dump(denominator), ast.dump(core)}
    for ancestor in ctx.ancestors(division):
        if isinstance(ancestor, ast.If | ast.IfExp | ast.While):
            tests = [ancestor.test]
        elif isinstance(ancestor, ast.Call) and (ctx.call_name(ancestor) or "").endswith("where"):
            tests = ancestor.args[:1]
        elif isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            break
        else:
            continue
        if any(ast.dump(n) in targets for test in tests for n in ast.walk(test)):
            return True
    return False


def _is_name(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name
