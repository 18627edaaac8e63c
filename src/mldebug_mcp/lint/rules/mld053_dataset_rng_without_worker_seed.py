import ast
import os
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import DATALOADERS, NOT_TRAINING, name_of
from ..helpers.loader_facts import (
    NUMPY_DRAWS,
    drawn_from_owned,
    helper_draws,
    library_generator,
    told_in_scope,
)
from ..helpers.loader_owned_rng import (
    NUMPY_GLOBAL_DRAWS,
    PER_SAMPLE,
    owned_generator_draw,
)
from ..helpers.loader_random_samples import runs_no_project_transform
from ..helpers.loader_torch_pin import pins_old_torch
from ..helpers.loader_worker_wrappers import unseeded_worker_wrapper
from ..rule import Hit, Rule

DATASETS = {f"torch.utils.data.{m}{c}" for m in ("", "dataset.") for c in ("Dataset", "IterableDataset")}
SAMPLING_METHODS = {"__getitem__", "__getitems__", "__iter__"}
NUMPY_GLOBAL = {f"numpy.random.{f}" for f in NUMPY_GLOBAL_DRAWS}
# one generator object built in __init__: every worker process receives an identical copy
GENERATORS = {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator", "random.Random"}
RESEEDS = {"torch.utils.data.get_worker_info", "numpy.random.seed"}


class DatasetRngWithoutWorkerSeed(Rule):
    """What it does: flags random draws in a Dataset's __getitem__/__iter__ (or a module function
    they call) from NumPy's global RNG or from a generator object created once in __init__, in a
    module whose DataLoader uses num_workers > 0 without a worker_init_fn; and a training
    DataLoader (torch's, or a project's own DataLoader class) with workers and no worker_init_fn
    when another file of the run draws such randomness (a Dataset's np.random draws,
    augmentation functions drawing from np.random, a MONAI Rand* transform owning a generator, a mask
    function or transform whose own `np.random.RandomState`/`default_rng`/`random.Random` is built once,
    a dataset drawing from a generator a seeding base class built, a module-level generator, a lhotse CutMix
    mixing with its own seed). Quiet for library augmentations that draw from the global generators (lhotse's
    SpecAugment, and its Perturb* transforms unless handed a `randgen=` object): torch reseeds those per worker.

    Why is this bad: each worker process starts from a copy of the parent's random state. A
    generator object stored on the dataset or transform is copied as is and never reseeded, so all
    workers (and, with fresh workers each epoch, all epochs) draw the same "random" augmentations.
    PyTorch reseeds Python's random module and, since 1.9, NumPy's global RNG in every worker: draws
    from np.random.* differ across workers there, so that variant is reported at info (reproducibility
    on old torch only), and as a warning when the project pins torch below 1.9.
    """

    code = "MLD053"
    name = "dataset-rng-without-worker-seed"
    category = "data"
    severity = "warning"
    message = "random draws in a Dataset repeat across DataLoader workers (num_workers > 0, no worker_init_fn)"
    why = ("Workers start from copies of one random state: a generator object on the dataset is never reseeded, "
           "so workers produce the same augmentations (np.random's global state is reseeded per worker since "
           "torch 1.9).")
    fix = ("Seed the generator per worker in worker_init_fn from torch.utils.data.get_worker_info().seed, or draw "
           "with torch's RNG or np.random's global functions (torch >= 1.9).")
    evidence = "pytorch-docs"
    node_types = (ast.ClassDef, ast.Module)
    requires_text = ('Dataset', 'DataLoader')  # skip modules that cannot contain the pattern
    BAD = (
        "import numpy as np\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "class Crops(Dataset):\n"
        "    def __init__(self, images):\n"
        "        self.images = images\n"
        "        self.rng = np.random.default_rng(0)\n"
        "    def __len__(self):\n"
        "        return len(self.images)\n"
        "    def __getitem__(self, i):\n"
        "        x = self.rng.integers(0, 8)\n"
        "        return self.images[i][:, x:x + 24]\n"
        "loader = DataLoader(Crops([]), batch_size=32, shuffle=True, num_workers=4)\n"
    )
    GOOD = (
        "import torch\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "class Crops(Dataset):\n"
        "    def __init__(self, images):\n"
        "        self.images = images\n"
        "    def __len__(self):\n"
        "        return len(self.images)\n"
        "    def __getitem__(self, i):\n"
        "        x = int(torch.randint(0, 8, ()))\n"
        "        return self.images[i][:, x:x + 24]\n"
        "loader = DataLoader(Crops([]), batch_size=32, shuffle=True, num_workers=4)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node, ast.Module):
            yield from _drawn_in_another_file(ctx)
            return
        if not _is_dataset(node, ctx, depth=3):
            return
        wrapper = unseeded_worker_wrapper(node, ctx)
        if wrapper is not None:
            severity, why = _global_weight(ctx, wrapper[1])
            yield Hit(wrapper[0], f"this wrapper runs in each DataLoader worker but does not reseed NumPy: the "
                                  f"wrapped data's np.random draws ({wrapper[1]}) {why}", severity)
            return
        methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        calls = [c for n in SAMPLING_METHODS & set(methods) for c in ast.walk(methods[n]) if isinstance(c, ast.Call)]
        # helpers the sampling methods call (self._augment(x)) run in the workers too
        helpers = {c.func.attr for c in calls if _on_self(c.func)} & set(methods) - SAMPLING_METHODS - {"__init__"}
        calls += [c for n in helpers for c in ast.walk(methods[n]) if isinstance(c, ast.Call)]
        # module functions they call (`cut_patches(sample)`) too: only their np.random draws are read
        calls += [c for n in SAMPLING_METHODS & set(methods) for c in helper_draws(methods[n], ctx)]
        calls.sort(key=lambda c: (c.lineno, c.col_offset))
        # the dataset seeds itself (get_worker_info, np.random.seed, rng.seed) or makes a fresh
        # generator per call: the author handles worker randomness
        if any(ctx.call_name(c) in RESEEDS or ctx.method_name(c) == "seed" for c in ast.walk(node)
               if isinstance(c, ast.Call)) or any(ctx.call_name(c) in GENERATORS for c in calls):
            return
        reported = set()
        for call in calls:
            name = ctx.call_name(call)
            if name in NUMPY_GLOBAL and "global" not in reported and _unseeded_workers(ctx, generator_helps=True):
                reported.add("global")
                severity, why = _global_weight(ctx, "")
                yield Hit(call, f"np.random.{name.rsplit('.', 1)[1]} in a Dataset with num_workers > 0 and no "
                                f"worker_init_fn: {why}", severity)
            attr = _self_generator(call, ctx)
            if attr and attr not in reported and _unseeded_workers(ctx, generator_helps=False):
                reported.add(attr)
                yield Hit(call, f"self.{attr} is one generator made in __init__: every DataLoader worker "
                                "gets an identical copy and draws the same numbers")


def _drawn_in_another_file(ctx: ModuleContext) -> Iterator[Hit]:
    """A training DataLoader of this file with workers and no worker_init_fn, in a run where another file of this
    project draws augmentation randomness that workers duplicate (a Dataset's or augmentation function's
    np.random draws, a library transform owning a generator: project facts numpy-rng-data, scoped to the files
    of one project). Draws of a dataset class count for loaders built on that class (or on a dataset this file
    cannot name); torchvision's CIFAR10 runs no other class's sampling. Flagged at the DataLoader, where the
    worker_init_fn goes."""
    if ctx.project is None:
        return
    here = next((c for c in ctx.by_type.get(ast.Call, ()) if library_generator(c, ctx)), None)
    owned = owned_generator_draw(ctx)
    if here is None and owned is not None and not _is_dataset(ctx.enclosing(owned, (ast.ClassDef,)), ctx, depth=3):
        here = owned  # a transform of this file drawing from its own generator (datasets are checked as classes)
    loaders = list(_unseeded_loaders(ctx))
    if not loaders:
        return
    mine = os.path.basename(ctx.path)
    for call in loaders:
        dataset = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "dataset"), None)
        names = [name_of(dataset)]
        parent = ctx.parent(call)
        names += [name_of(t) for t in parent.targets] if isinstance(parent, ast.Assign) else []
        if any(NOT_TRAINING.search(n.lower()) for n in names):
            continue
        if here is not None:  # a library transform built next to the loader (lhotse's CutMix, MONAI's Rand*)
            drawn = f"{mine}:{here.lineno}"
        else:
            # a transform or augmentation function: any dataset handed it (not a library dataset given library
            # transforms only, nor a dataset of random draws)
            drawn = told_in_scope(ctx, NUMPY_DRAWS) if not runs_no_project_transform(dataset, ctx) else None
            if not drawn:
                classes = dataset_classes(dataset, ctx)
                drawn = told_in_scope(ctx, f"{NUMPY_DRAWS}:*") if classes is None else next(
                    (d for c in classes if (d := told_in_scope(ctx, f"{NUMPY_DRAWS}:{c}"))), None)
            if not drawn or drawn.split(":")[0] == mine:
                continue  # none, or this file's own draws (its Dataset classes are checked where they are)
        if here is not None or drawn_from_owned(drawn):
            yield Hit(call, f"augmentation randomness drawn at {drawn} repeats across this DataLoader's workers "
                            "(num_workers > 0, no worker_init_fn)")
        else:
            severity, why = _global_weight(ctx, drawn)
            yield Hit(call, f"augmentation randomness drawn from np.random at {drawn} in this DataLoader's workers "
                            f"(num_workers > 0, no worker_init_fn): {why}", severity)


def _global_weight(ctx: ModuleContext, drawn: str) -> tuple[str | None, str]:
    """(severity, why) for draws from NumPy's global state (or a generator object, when `drawn` says
    so): torch >= 1.9 reseeds that state in every worker, so they repeat only where the project pins older torch."""
    if drawn_from_owned(drawn):
        return None, "repeat across workers (a generator object is copied, never reseeded)"
    pin = ctx.memo(("mld053", "torch-pin"), lambda: pins_old_torch(ctx.path, ctx.roots))  # once per file linted
    ctx.read_beyond = True  # the dependency files decide: an outcome not to keep (lint/result_cache.py)
    if pin:
        return None, f"workers repeat each other's draws: this project pins torch below 1.9 ({pin}), " \
                      "which does not reseed NumPy per worker"
    return "info", "torch >= 1.9 reseeds NumPy per worker, so draws repeat only on older torch " \
                  "(seed workers for reproducibility)"


def _unpacked_from(name: ast.AST, ctx: ModuleContext) -> list[ast.expr]:
    """`train, _ = random_split(tiny, sizes)`: the value a name is unpacked from, in its scope."""
    if not isinstance(name, ast.Name):
        return []
    scope = ctx.scope_of(name)
    return [a.value for a in ctx.by_type.get(ast.Assign, ()) if ctx.scope_of(a) is scope and any(
        isinstance(t, ast.Tuple) and any(isinstance(e, ast.Name) and e.id == name.id for e in t.elts)
        for t in a.targets)]


# calls that hand on the dataset they are given (a split, a subset, a concatenation)
PASSING_ON = {"random_split", "Subset", "ConcatDataset", "ChainDataset", "list", "tuple"}


def dataset_classes(expr: ast.AST | None, ctx: ModuleContext, depth: int = 4) -> set[str] | None:
    """The classes a loader's dataset is built from (`CIFAR10(...) + Textures(...)`, `random_split(tiny, ...)`,
    a name holding one); None when some part is not a class built here (a parameter, a factory's result)."""
    if expr is None or depth < 0:
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = dataset_classes(expr.left, ctx, depth - 1), dataset_classes(expr.right, ctx, depth - 1)
        return None if left is None or right is None else left | right
    if isinstance(expr, ast.List | ast.Tuple):
        parts = [dataset_classes(e, ctx, depth - 1) for e in expr.elts]
        return None if not parts or None in parts else set().union(*parts)
    if isinstance(expr, ast.Subscript):
        return dataset_classes(expr.value, ctx, depth - 1)  # random_split(...)[0]
    if isinstance(expr, ast.Name | ast.Attribute):
        values = ctx.values_of(expr, at=expr) or _unpacked_from(expr, ctx)
        if not values:
            return None
        parts = [dataset_classes(v, ctx, depth - 1) for v in values]
        return None if None in parts else set().union(*parts)
    if isinstance(expr, ast.Call):
        short = name_of(expr.func).rsplit(".", 1)[-1]
        if short in PASSING_ON:
            return dataset_classes(expr.args[0], ctx, depth - 1) if expr.args else None
        if short[:1].isupper() and short not in ("DataLoader",):
            return {short}
    return None


def _is_dataset(cls: ast.ClassDef, ctx: ModuleContext, depth: int) -> bool:
    for base in cls.bases:
        name = ctx.qualname(base)
        local = ctx.classes.get(name or "")
        if name in DATASETS or (local is not None and local is not cls and depth and _is_dataset(local, ctx, depth - 1)):
            return True
    return False


def _on_self(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"


def _self_generator(call: ast.Call, ctx: ModuleContext) -> str | None:
    """'rng' for `self.rng.integers(...)` when every assignment to self.rng is a generator made once (in __init__
    or a setup method it calls), not per sample."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if not _on_self(receiver):
        return None
    values = ctx.values_of(receiver)
    in_init = all(getattr(ctx.enclosing(v, (ast.FunctionDef,)), "name", "") not in PER_SAMPLE for v in values)
    return receiver.attr if values and in_init and all(ctx.call_name(v) in GENERATORS for v in values) else None


def _unseeded_workers(ctx: ModuleContext, generator_helps: bool) -> bool:
    """A DataLoader here with num_workers > 0 (a positive literal or a variable) and no worker_init_fn."""
    return any(True for _ in _unseeded_loaders(ctx, generator_helps))


def _unseeded_loaders(ctx: ModuleContext, generator_helps: bool = False) -> Iterator[ast.Call]:
    for call in ctx.by_type.get(ast.Call, ()):
        # a project's own DataLoader (a subclass of torch's, imported from the project) takes the same keywords
        if ctx.call_name(call) not in DATALOADERS and not (
                isinstance(call.func, ast.Name) and call.func.id in _project_loaders(ctx)):
            continue
        keywords = {k.arg: k.value for k in call.keywords}
        workers = keywords.get("num_workers", call.args[5] if len(call.args) > 5 else None)
        if None in keywords or workers is None or (isinstance(workers, ast.Constant) and not workers.value):
            continue  # **kwargs may carry worker_init_fn; no workers: everything runs in this process
        if "worker_init_fn" in keywords or (generator_helps and "generator" in keywords):
            continue
        yield call


def _project_loaders(ctx: ModuleContext) -> set[str]:
    """Names bound to a class called DataLoader imported from this project (a relative import, or a package that
    is a folder on this file's path), not from a library (MONAI's seeds its workers itself)."""
    def collect() -> set[str]:
        folders = set(os.path.normpath(ctx.path).split(os.sep)[:-1])
        return {alias.asname or alias.name for node in ctx.by_type.get(ast.ImportFrom, ())
                for alias in node.names if alias.name == "DataLoader"
                and (node.level > 0 or (node.module or "").split(".")[0] in folders)}
    return ctx.memo(("mld053.project_loaders",), collect)
