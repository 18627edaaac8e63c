import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import DATALOADERS, NOT_TRAINING, name_of
from ..helpers.graph import callee
from ..helpers.loader_random_samples import (
    ITERABLE,
    RANDOM_SAMPLES,
    SELF_SHUFFLING,
    dataset_class_told,
    random_draw,
)
from ..helpers.loader_manual_batches import sliced_in_order
from ..helpers.loops import is_any_backward, is_optimizer_step, is_scheduler_step
from ..rule import Hit, Rule

# these return randomly permuted parts (train_test_split shuffles unless told not to)
RANDOM_SPLITS = {"torch.utils.data.random_split", "torch.utils.data.dataset.random_split",
                 "sklearn.model_selection.train_test_split"}
DEV_SPLIT = re.compile(r"(?:^|[^a-z])dev(?:$|[^a-z]|set|data|loader)")  # dev_loader, devset: the development split
NOT_A_SPLIT = re.compile(r"(?:con|re)?strain")  # strain_data, constraint: 'train' by accident
# torchtext's datasets are iterable datapipes (Multi30k(split="train")): a DataLoader cannot shuffle them
STREAMED = ("torchtext.datasets.",)
# wrappers a loader is iterated through, and the call names that train or may hide training
ITERATING = {"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "zip"}
MAY_TRAIN = re.compile(r"backward|step|train|update|fit|learn|optim|loss|grad|epoch", re.IGNORECASE)
# the leading word of a function that only reads the loader: evaluate_loss(model, train_loader)
READER_VERBS = {"eval", "evaluate", "evaluation", "test", "validate", "validation", "predict", "infer",
                "inference", "extract", "encode", "embed", "measure"}


def _on(expr: ast.AST | None) -> bool:
    return expr is not None and not (isinstance(expr, ast.Constant) and expr.value in (None, False))


class TrainLoaderWithoutShuffle(Rule):
    """What it does: flags a DataLoader over a training dataset (the dataset, its arguments or
    the variable it is assigned to is named like 'train' and not 'val'/'test'/'eval') that
    neither passes shuffle=True nor a sampler or batch_sampler (a loader with batch_size=None, whose dataset yields
    whole batches in its own order, is left alone); and batches sliced by hand in a training
    loop (`lines[step * B:(step + 1) * B]`) from data that nothing in the function shuffles.

    Why is this bad: DataLoader does not shuffle by default, so every epoch visits the data in
    file order. With data sorted by label, source or time, batches are far from i.i.d.: the
    loss still falls, but it swings with position in the epoch and the model ends on a bias.
    """

    code = "MLD050"
    name = "train-loader-without-shuffle"
    category = "data"
    severity = "warning"
    message = "training DataLoader without shuffle=True or a sampler iterates in the same fixed order every epoch"
    why = "DataLoader defaults to shuffle=False; sorted data gives single-class or single-source batches and a biased model."
    fix = "Pass shuffle=True (or a sampler such as DistributedSampler/WeightedRandomSampler) to the training loader."
    evidence = "slavv"
    node_types = (ast.Call,)
    requires_text = ('DataLoader', 'backward')  # skip modules that cannot contain the pattern
    MANUAL = ("batches are sliced from {name} in the same order on every pass of this training loop, and nothing in "
              "the function shuffles it: shuffle {name} (or a permutation of its indices) once per epoch")
    BAD = (
        "from torch.utils.data import DataLoader\n"
        "def make_loader(train_ds):\n"
        "    return DataLoader(train_ds, batch_size=64)\n"
    )
    GOOD = (
        "from torch.utils.data import DataLoader\n"
        "def make_loaders(train_ds, val_ds):\n"
        "    train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)\n"
        "    val_loader = DataLoader(val_ds, batch_size=64)\n"
        "    return train_loader, val_loader\n"
    )

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        # hand-sliced batches: one pass over the module's slices here, not a check call for every subscript
        for node in ctx.by_type.get(ast.Subscript, ()):
            name = sliced_in_order(node, ctx) if type(node.slice) is ast.Slice else None
            if name is not None:
                yield Hit(node, self.MANUAL.format(name=name))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.call_name(node) not in DATALOADERS:
            return
        keywords = {k.arg: k.value for k in node.keywords}
        # **kwargs or *args may carry shuffle/sampler: unknowable here
        if None in keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return
        # shuffle=True or shuffle=<variable>, a sampler, or the same positionally:
        # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, ...)
        if any(_on(keywords.get(k)) for k in ("shuffle", "sampler", "batch_sampler")) or any(map(_on, node.args[2:5])):
            return
        batch_size = keywords.get("batch_size", node.args[1] if len(node.args) > 1 else None)
        if isinstance(batch_size, ast.Constant) and batch_size.value is None:
            return  # batch_size=None: the dataset yields whole batches in its own order (asv-subtools' egs pipeline)
        dataset = node.args[0] if node.args else keywords.get("dataset")
        names = _names(node, dataset, ctx) if dataset is not None else []
        # any hint of validation/test wins: stay quiet when the names disagree
        if any(NOT_TRAINING.search(n) or DEV_SPLIT.search(n) for n in names):
            return
        # named for training, or, whatever it is called, iterated by a loop that back-propagates and steps
        if not any("train" in NOT_A_SPLIT.sub("", n) for n in names) and not _trained_on(node, ctx):
            return
        if _iterable_or_preshuffled(dataset, ctx) or _never_trained_on(node, ctx):
            return
        if "shuffle" in keywords or len(node.args) > 2:
            yield Hit(node, "training DataLoader with shuffle=False iterates in the same fixed order every epoch"
                            " (if the order is deliberate, say so with # noqa: MLD050)")
        else:
            yield Hit(node)


def _names(call: ast.Call, dataset: ast.AST, ctx: ModuleContext) -> list[str]:
    """The dataset, the variable the loader is assigned to (or the function returning it), and
    the arguments of a dataset built inline: TensorDataset(X_train, y_train), MNIST(root, train=True)."""
    names = [name_of(dataset)]
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign | ast.AnnAssign | ast.NamedExpr):
        names += [name_of(t) for t in getattr(parent, "targets", [getattr(parent, "target", None)])]
    elif isinstance(parent, ast.Return):  # def train_dataloader(self): return DataLoader(...)
        function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
        names.append(function.name if function else "")
    if isinstance(dataset, ast.Call):
        names += [name_of(a) for a in dataset.args[1:]]
        names += [k.arg for k in dataset.keywords if k.arg == "train" and getattr(k.value, "value", None) is True]
    # keywords of the dataset's construction: split="train", transform=test_transform (feature extraction)
    # (an attribute read from another dataset, `vocab=train_set.vocab`, says nothing of this one's split)
    built = ctx.resolve(dataset)
    names += [_split_hint(k) for k in built.keywords if k.arg] if isinstance(built, ast.Call) else []
    # a path the dataset is read from says its split whatever the dataset is called: CsvDataset(root + "/train.csv")
    names += [n.value for a in built.args for n in ast.walk(a) if isinstance(n, ast.Constant)
              and isinstance(n.value, str)] if isinstance(built, ast.Call) else []
    return [n.lower() for n in names if n]


def _split_hint(keyword: ast.keyword) -> str:
    """What a keyword of the dataset's construction says of its split: `split="train"`, `is_train=False`,
    `transform=test_transform`; '' for values that name another object (`label2idx=train_set.label2idx`)."""
    value = keyword.value
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return ("train" if value.value else "eval") if "train" in keyword.arg.lower() else ""
    name = name_of(value)
    return name if isinstance(value, ast.Constant | ast.Name) or NOT_TRAINING.search(name.lower()) else ""


def _iterable_or_preshuffled(dataset: ast.AST, ctx: ModuleContext) -> bool:
    parts = [dataset] + (dataset.args if isinstance(dataset, ast.Call) else [])
    if any(_from_random_split(p, ctx) for p in parts if isinstance(p, ast.Name)):
        return True
    if any(_from_random_split_attr(p, ctx) for p in parts if isinstance(p, ast.Attribute)):
        return True
    value = ctx.resolve(dataset)
    if _random_draws(value, ctx) or (ctx.call_name(value) or "").startswith(STREAMED):
        return True
    if ctx.method_name(value) == "shuffle":  # ds.shuffle(seed=0): a deliberate (one-off) order
        return True
    if _random_sample_class(value, ctx):
        return True
    return _subclasses_iterable(ctx.call_name(value), ctx, depth=3)


def _random_sample_class(value: ast.AST, ctx: ModuleContext) -> bool:
    """`RandomClassificationDataset(size=8)`: a class of this file or of the project (told by the file that
    defines it) whose samples are random draws, an IterableDataset, or a dataset that shuffles its own sample
    list (it builds its batches itself): there is no order to shuffle away."""
    name = callee(value.func) if isinstance(value, ast.Call) else ""
    return bool(name) and dataset_class_told(name, ctx, (RANDOM_SAMPLES, SELF_SHUFFLING))


def _subclasses_iterable(qualname: str | None, ctx: ModuleContext, depth: int) -> bool:
    cls = ctx.classes.get(qualname or "")
    return qualname in ITERABLE or bool(cls and depth and any(
        _subclasses_iterable(ctx.qualname(base), ctx, depth - 1) for base in cls.bases))


def _from_random_split(name: ast.Name, ctx: ModuleContext) -> bool:
    """`train_ds, val_ds = random_split(...)` here: already randomly ordered, so one fixed order
    per epoch is a far smaller problem than file order. train_test_split(shuffle=False) is not."""
    for assign in ctx.in_scope(ctx.scope_of(name), (ast.Assign,)):
        call = assign.value
        if ctx.call_name(call) not in RANDOM_SPLITS:
            continue
        if any(k.arg == "shuffle" and getattr(k.value, "value", None) is not True for k in call.keywords):
            continue
        targets = [e for t in assign.targets if isinstance(t, ast.Tuple | ast.List) for e in t.elts]
        if any(isinstance(t, ast.Name) and t.id == name.id for t in targets):
            return True
    return False


def _from_random_split_attr(attr: ast.Attribute, ctx: ModuleContext) -> bool:
    """`self.train_ds, self.val_ds = random_split(...)` in another method of the class (a LightningDataModule's
    setup): already randomly ordered, as for a local name."""
    cls = ctx.enclosing_class(attr)
    if cls is None or not (isinstance(attr.value, ast.Name) and attr.value.id == "self"):
        return False
    for assign in (n for n in ast.walk(cls) if isinstance(n, ast.Assign)):
        call = assign.value
        if ctx.call_name(call) not in RANDOM_SPLITS or any(
                k.arg == "shuffle" and getattr(k.value, "value", None) is not True for k in call.keywords):
            continue
        targets = [e for t in assign.targets if isinstance(t, ast.Tuple | ast.List) for e in t.elts]
        if any(isinstance(t, ast.Attribute) and t.attr == attr.attr and isinstance(t.value, ast.Name)
               and t.value.id == "self" for t in targets):
            return True
    return False


def _random_draws(value: ast.AST, ctx: ModuleContext) -> bool:
    """TensorDataset(noise, labels) with `noise = torch.rand(n, 3, 32, 32)`: samples drawn i.i.d. at random
    (a noise set for out-of-distribution tests, a synthetic smoke test) have no order to shuffle away."""
    if not (isinstance(value, ast.Call) and value.args):
        return False
    inputs = ctx.resolve(value.args[0]) if isinstance(value.args[0], ast.Name) else value.args[0]
    return any(random_draw(n, ctx) for n in ast.walk(inputs))


def _never_trained_on(call: ast.Call, ctx: ModuleContext) -> bool:
    """Every use of the loader is in sight and none trains: `for batch in loader` whose body neither backwards
    nor steps nor calls anything named for training, or an argument to a function whose name leads with a
    reading verb (`evaluate_loss(model, train_loader)`). Feature caches, distance tables and loss measurements
    read a training split in a fixed order on purpose. A loader returned, stored or passed on elsewhere may train."""
    uses = _assigned_uses(call, ctx)
    if uses is None:
        parent = ctx.parent(call)
        if not (isinstance(parent, ast.For | ast.comprehension) and parent.iter is call):
            return False
        uses = [call]
    return bool(uses) and all(_only_read(use, ctx) for use in uses)


def _trained_on(call: ast.Call, ctx: ModuleContext) -> bool:
    """The loader (or the name it is assigned to) is iterated here by a `for` whose body runs a backward()
    and an optimiser step: the training loop's loader, whatever it is called."""
    uses = _assigned_uses(call, ctx)
    for use in [call] if uses is None else uses:
        node, loop = _unwrapped(use, ctx)
        if isinstance(loop, ast.For) and loop.iter is node:
            calls = [n for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.Call)]
            # `o.step()` after the backward, whatever the optimiser is called (a scheduler's step is not one)
            if any(isinstance(c.func, ast.Attribute) and c.func.attr == "step" and not is_scheduler_step(c, ctx)
                   for c in calls) and any(is_any_backward(c) for c in calls):
                return True
    return False


def _assigned_uses(call: ast.Call, ctx: ModuleContext) -> list[ast.Name] | None:
    """Where the name the loader is assigned to (`dl = DataLoader(...)`) is read in its scope; None when the
    loader is not assigned to one name."""
    parent = ctx.parent(call)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return None
    name = parent.targets[0].id
    return [n for n in ast.walk(ctx.scope_of(call)) if isinstance(n, ast.Name) and n.id == name
            and isinstance(n.ctx, ast.Load)]


def _unwrapped(use: ast.AST, ctx: ModuleContext) -> tuple[ast.AST, ast.AST | None]:
    """(the outermost of `enumerate(tqdm(loader))` around the use, what holds it)."""
    node, parent = use, ctx.parent(use)
    while isinstance(parent, ast.Call) and node in parent.args and (ctx.call_name(parent) or callee(parent.func)) in ITERATING:
        node, parent = parent, ctx.parent(parent)
    return node, parent


def _only_read(use: ast.AST, ctx: ModuleContext) -> bool:
    node, parent = _unwrapped(use, ctx)
    if isinstance(parent, ast.Call) and callee(parent.func) == "len" and ctx.call_name(parent) is None:
        return True
    if isinstance(parent, ast.For) and parent.iter is node:
        return not any(isinstance(n, ast.Call) and _may_train(n, ctx) for s in parent.body for n in ast.walk(s))
    if isinstance(parent, ast.comprehension) and parent.iter is node:
        return True
    if isinstance(parent, ast.List | ast.Tuple):  # `trainer.validate(dataloaders=[train_dl, val_dl])`: a kNN bank
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.keyword):  # f(loader=train_loader)
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Call) and (node in parent.args or node in parent.keywords):
        return callee(parent.func).lower().split("_")[0] in READER_VERBS
    return False


def _may_train(call: ast.Call, ctx: ModuleContext) -> bool:
    return is_any_backward(call) or is_optimizer_step(call, ctx) or bool(MAY_TRAIN.search(callee(call.func)))
