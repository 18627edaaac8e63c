import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import DATALOADERS, EVALUATION_NAME, name_of
from ..rule import Hit, Rule

SPLIT_NAMES = {"test", "val", "valid", "validation", "eval", "dev"}


class EvalLoaderDropsLast(Rule):
    """What it does: flags `drop_last=True` on a DataLoader that feeds an evaluation: one whose name or dataset's
    name says test, validation or eval (`loader_test = DataLoader(dataset_test, ..., drop_last=True)`), or whose
    `drop_last` comes from a name set True in the branch for the test split (`if flag == 'test': drop_last = True`,
    the data factory of many time-series forecasting projects). A literal `batch_size=1` drops nothing and stays
    quiet, as do loaders named for training. A test or eval loader is a warning (its metric is the number reported);
    a validation loader is info (a few samples left out rarely change which checkpoint is kept).

    Why is this bad: drop_last discards the final batch when it is smaller than the batch size. On a test or
    validation set that is up to batch_size - 1 samples left out of every reported metric, always the same ones
    (the end of the set, which in a time series is the most recent period), so the number is computed on a
    different set than the one described, and it changes with the batch size.
    """

    code = "MLD055"
    name = "eval-loader-drops-last"
    category = "data"
    severity = "warning"
    message = ("drop_last=True on {what}: the last partial batch (up to batch_size - 1 samples) is left out of every "
               "metric computed on it")
    why = "drop_last discards the final short batch, so evaluation silently skips the end of the set."
    fix = "Use drop_last=False for validation and test loaders (keep it for training if the model needs full batches)."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    call_names = frozenset({"DataLoader"})
    requires_text = ("drop_last",)
    BAD = (
        "from torch.utils.data import DataLoader\n"
        "def loaders(train_set, test_set, batch_size):\n"
        "    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, drop_last=True)\n"
        "    test_loader = DataLoader(test_set, batch_size=batch_size, shuffle=False, drop_last=True)\n"
        "    return train_loader, test_loader\n"
    )
    GOOD = BAD.replace("shuffle=False, drop_last=True", "shuffle=False, drop_last=False")
    SPLIT = ("drop_last is True for the {split!r} split here and reaches the DataLoader on line {line}: the last "
             "partial batch (up to batch_size - 1 samples) is left out of every metric computed on that split")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        name = ctx.call_name(node) or ""
        if name not in DATALOADERS and not name.endswith("DataLoader"):
            return
        keywords = {k.arg: k.value for k in node.keywords}
        drop = keywords.get("drop_last")
        batch = keywords.get("batch_size", node.args[1] if len(node.args) > 1 else None)
        if drop is None or isinstance(batch, ast.Constant) and batch.value == 1:
            return
        if isinstance(drop, ast.Constant) and drop.value is True:
            named = _evaluation_loader(node, ctx)
            if named is not None:
                yield Hit(drop, self.message.format(what=f"`{named}`, an evaluation loader"), severity=_severity(named))
        elif isinstance(drop, ast.Name):
            for assign, split in _true_for_evaluation_split(drop, node, ctx):
                yield Hit(assign, self.SPLIT.format(split=split, line=node.lineno), severity=_severity(split))


def _severity(named: str) -> str:
    """A test set's metric is the number reported (warning); a validation set's picks a checkpoint or stops early,
    where a few samples left out rarely change the choice (info)."""
    return "warning" if re.search(r"test|eval", EVALUATION_NAME.search(named).group(1), re.IGNORECASE) else "info"


def _evaluation_loader(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The name (of the loader or its dataset) that says evaluation, when none says training."""
    parent = ctx.parent(call)
    names = [name_of(t) for t in parent.targets] if isinstance(parent, ast.Assign) else []
    keywords = {k.arg: k.value for k in call.keywords}
    dataset = call.args[0] if call.args else keywords.get("dataset")
    names.append(name_of(dataset))
    if any("train" in n.lower() for n in names if n):
        return None
    for n in names:
        if n and EVALUATION_NAME.search(n):
            return n
    return None


def _true_for_evaluation_split(drop: ast.Name, call: ast.Call, ctx: ModuleContext) -> list[tuple[ast.Assign, str]]:
    """`drop_last = True` statements of the call's function that sit under `if flag == 'test':` (or 'val')."""
    function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return []
    found = []
    for assign in ast.walk(function):
        if not (isinstance(assign, ast.Assign) and isinstance(assign.value, ast.Constant) and assign.value.value is True
                and any(isinstance(t, ast.Name) and t.id == drop.id for t in assign.targets)
                and assign.lineno < call.lineno):
            continue
        split = _split_tested(assign, function, ctx)
        if split is not None:
            found.append((assign, split))
    return found


def _split_tested(assign: ast.Assign, function: ast.AST, ctx: ModuleContext) -> str | None:
    """The evaluation split an `if x == 'test':` around `assign` (in its body, not its else) selects."""
    child = assign
    for ancestor in ctx.ancestors(assign):
        if ancestor is function:
            return None
        if isinstance(ancestor, ast.If) and child in ancestor.body:
            split = _split_named(ancestor.test)
            if split is not None:
                return split
        child = ancestor
    return None


def _split_named(test: ast.expr) -> str | None:
    """'test' for `flag == 'test'` (or `flag in ('val', 'test')`: the first evaluation split named)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq | ast.In)):
        return None
    sides = [test.left, *test.comparators]
    values = [v for side in sides for v in (side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side])]
    return next((str(v.value) for v in values if isinstance(v, ast.Constant) and str(v.value).lower() in SPLIT_NAMES),
                None)
