"""Project facts about data loading that other files of a run need (MLD053, MLD054): whether any file calls
set_epoch at all (a hook, a callback, a trainer's loader-start event), and where a file draws augmentation
randomness that DataLoader workers duplicate: from NumPy's global RNG (in a Dataset's sampling methods, or in
augmentation functions a dataset of another file calls), or from a library transform that owns a generator."""

import ast
import os
import re
import sys

from ..context import ModuleContext
from .loader_owned_rng import NUMPY_GLOBAL_DRAWS, owned_generator_draw
from .loader_random_samples import (
    RANDOM_SAMPLES,
    SELF_SHUFFLING,
    random_sample_classes,
    self_shuffling_classes,
)

SETS_EPOCH = "sets-epoch"  # project fact: some file of the run calls .set_epoch(...)
NUMPY_DRAWS = "numpy-rng-data"  # project fact: a file draws data randomness from np.random's global state
OWNED = " (a generator object copied into every worker)"  # ends a NUMPY_DRAWS value drawn from such an object
# functions whose name says they transform a sample at random (augmentation of a data pipeline)
AUGMENTING = re.compile(r"augment|random_?(flip|crop|rot|scale|shift|jitter|noise|erase|resize)|jitter|perturb")


def loader_facts(ctx: ModuleContext) -> dict[str, str]:
    found = {}
    if ctx.has_text("set_epoch") and (
            any("set_epoch" in n.attr and not _in_named_helper(n, ctx) for n in ctx.by_type.get(ast.Attribute, ()))
            or any(n.value == "set_epoch" for n in ctx.by_type.get(ast.Constant, ()))):
        found.update(scoped(SETS_EPOCH, os.path.basename(ctx.path), ctx))
    if ctx.has_text("random") or ctx.has_text("Rand") or ctx.has_text("lhotse") or ctx.has_text("rng"):
        draws = _augmenting_numpy_draws(ctx)
        if draws:
            first = min(draws, key=lambda d: (d[1].lineno, d[1].col_offset))[1]
            where = f"{os.path.basename(ctx.path)}:{first.lineno}" + _owned_mark(draws, ctx)
            classes = {cls for cls, _ in draws}
            if None in classes:  # drawn outside a dataset's sampling: whatever dataset is handed the transform
                found.update(scoped(NUMPY_DRAWS, where, ctx))
            for cls in sorted(classes - {None}):  # drawn by these dataset classes: their loaders
                mine = [(c, d) for c, d in draws if c == cls]
                at = f"{os.path.basename(ctx.path)}:{min(d.lineno for _, d in mine)}" + _owned_mark(mine, ctx)
                found.update(scoped(f"{NUMPY_DRAWS}:{cls}", at, ctx))
            found.update(scoped(f"{NUMPY_DRAWS}:*", where, ctx))  # any draw: for a loader whose dataset is unknown
    for cls, line in random_sample_classes(ctx).items():  # MLD050: datasets of random draws, in no order
        found.update(scoped(f"{RANDOM_SAMPLES}:{cls}", f"{os.path.basename(ctx.path)}:{line}", ctx))
    for cls, line in self_shuffling_classes(ctx).items():  # MLD050: datasets that shuffle their own samples
        found.update(scoped(f"{SELF_SHUFFLING}:{cls}", f"{os.path.basename(ctx.path)}:{line}", ctx))
    return found


def _owned_mark(draws: list[tuple[str | None, ast.Call]], ctx: ModuleContext) -> str:
    """OWNED when some draw is from a generator object (torch reseeds NumPy's global state per worker since 1.9,
    never a generator copied into the workers), so that the loader's finding keeps its weight."""
    return OWNED if any(not numpy_global_draw(d, ctx) for _, d in draws) else ""


def drawn_from_owned(drawn: str) -> bool:
    return drawn.endswith(OWNED)


# Scoping (issue 17): a file's facts reach the files of its own project only, not every file of a run over a
# folder that holds several projects. A fact is told under the file's module path and each folder above it;
# a file asks under its own folder (every file below it) and under the places its imports may name (a
# top-level package or module `m` beside any folder above it, or under its `src/`; a relative import's
# package). Keys start with '@' so that no lazy family takes them for one of its names.
# names that are never a module of the project being linted
LIBRARIES = frozenset(sys.stdlib_module_names) | {
    "torch", "torchvision", "torchaudio", "torchtext", "numpy", "scipy", "sklearn", "pandas", "PIL", "cv2",
    "matplotlib", "tqdm", "transformers", "datasets", "accelerate", "lightning", "pytorch_lightning", "timm",
    "yaml", "h5py", "tensorboardX", "wandb", "einops", "apex", "deepspeed", "skimage", "seaborn", "requests",
    "__future__"}
ANCESTORS = 5  # folders above a file where a package it imports may lie (scripts/exp/train.py: repo/pkg)


def scoped(name: str, value: str, ctx: ModuleContext) -> dict[str, str]:
    """The fact `name` told for the file's own module and every folder above it."""
    full = os.path.abspath(ctx.path)
    scopes = [os.path.splitext(full)[0]]
    folder = os.path.dirname(full)
    while True:
        scopes.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return {f"@{name}@{scope}": value for scope in scopes}


def asked_scopes(ctx: ModuleContext) -> tuple[str, ...]:
    """Where a fact this file may need is told: its own folder, then the packages and modules it imports."""
    return ctx.memo(("loader-facts", "scopes"), lambda: _asked_scopes(ctx))


def _asked_scopes(ctx: ModuleContext) -> tuple[str, ...]:
    folder = os.path.dirname(os.path.abspath(ctx.path))
    found = [folder]
    above = [folder]
    while len(above) <= ANCESTORS and os.path.dirname(above[-1]) != above[-1]:
        above.append(os.path.dirname(above[-1]))
    names = []
    for node in ctx.by_type.get(ast.Import, ()):
        names += [alias.name.split(".")[0] for alias in node.names]
    for node in ctx.by_type.get(ast.ImportFrom, ()):
        if node.level:  # from ..data import x: that package (or module) of this file's project
            base = above[min(node.level - 1, len(above) - 1)]
            found.append(os.path.join(base, *node.module.split(".")) if node.module else base)
        elif node.module:
            names.append(node.module.split(".")[0])
    names = sorted(set(names) - LIBRARIES)
    for base in above:
        for name in names:
            found += [os.path.join(base, name), os.path.join(base, "src", name)]
    return tuple(dict.fromkeys(found))


def told_in_scope(ctx: ModuleContext, name: str, family: str = "") -> str | None:
    """The value of the scoped fact `name` (of a key family such as `mode:`) that a file of this file's project
    tells (this file's own first)."""
    project = ctx.project
    if project is None:
        return None
    for scope in asked_scopes(ctx):
        found = project.kind_returned_by(f"{family}@{name}@{scope}")
        if found:
            return found
    return None


# a function a framework calls at an event (`before_epoch`, `on_train_epoch_start`, `epoch_hook`)
HOOK_NAME = re.compile(r"^_*(on|before|after|pre|post)_|hook|callback|epoch_(start|begin|end)")


def _in_named_helper(node: ast.AST, ctx: ModuleContext) -> bool:
    """Inside a module-level function not named for an event: a helper that works only where it is called by
    name, which MLD054 checks at the epoch loop (the `sets_epoch:` facts); hooks and callback methods are
    called by their framework instead."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return function is not None and isinstance(ctx.parent(function), ast.Module) \
        and not HOOK_NAME.search(function.name.lower())


# lhotse's random augmentations that own their randomness (lhotse/dataset/cut_transforms): CutMix mixes with its
# own seed (42 unless told otherwise); the Perturb*/Reverb transforms draw from a `randgen=` object when handed one,
# else from Python's global random. SpecAugment and RandomizedSmoothing draw from the global random, NumPy and torch
# generators (signal_transforms.py), which torch reseeds in every worker: not listed.
LHOTSE_OWN_SEED = {"CutMix"}
LHOTSE_HANDED_GENERATOR = {"PerturbSpeed", "PerturbTempo", "PerturbVolume", "ReverbWithImpulseResponse"}


def library_generator(call: ast.Call, ctx: ModuleContext) -> bool:
    """A MONAI random transform (`monai.transforms.RandScaleIntensity(...)`): it owns a NumPy RandomState made
    once, which every DataLoader worker receives as an identical copy (torch reseeds no such object); a lhotse
    augmentation with a generator of its own (`CutMix(cuts=musan)`: seed 42; `PerturbSpeed(..., randgen=rng)`)."""
    name = ctx.call_name(call) or ""
    short = name.rsplit(".", 1)[-1]
    if name.startswith("monai."):
        return short.startswith("Rand")
    return name.startswith("lhotse.") and (short in LHOTSE_OWN_SEED or short in LHOTSE_HANDED_GENERATOR and any(
        keyword.arg == "randgen" for keyword in call.keywords))


def numpy_global_draw(call: ast.Call, ctx: ModuleContext) -> bool:
    name = ctx.call_name(call) or ""
    return name.startswith("numpy.random.") and name.rsplit(".", 1)[1] in NUMPY_GLOBAL_DRAWS


def _augmenting_numpy_draws(ctx: ModuleContext) -> list[tuple[str | None, ast.Call]]:
    """(dataset class or None, draw): the draws from np.random's global state in a Dataset's sampling methods
    or a function named for random augmentation (`random_flip_along_x`, `augment`), in a file that never seeds
    NumPy itself; a library transform or an object owning a generator. The class is named when the draw runs in
    that dataset's own sampling (its loaders are the ones it reaches), None when any dataset handed the
    transform may run it."""
    calls = ctx.by_type.get(ast.Call, ())
    # a qualified name starts with an import's module or a local class or function: the calls each test looks
    # for need one of these roots (most files import neither numpy, monai nor lhotse)
    roots = {alias.partition(".")[0] for alias in ctx.aliases.values()} | ctx.classes.keys() | ctx.functions.keys()
    numpy = "numpy" in roots
    if (numpy or "torch" in roots) and _seeds_workers(calls, ctx):
        return []
    if "monai" in roots or "lhotse" in roots:
        library = next((c for c in calls if library_generator(c, ctx)), None)
        if library is not None:
            return [(None, library)]
    draws = []
    for func in ctx.by_type.get(ast.FunctionDef, ()) if numpy else ():  # numpy_global_draw: numpy.random.*
        sampling = func.name in ("__getitem__", "__getitems__", "__iter__") and _in_dataset(func, ctx)
        if sampling or AUGMENTING.search(func.name.lower()) or _transform(func, ctx):
            owner = _dataset_of(func, ctx)
            draws += [(owner, c) for c in ast.walk(func) if isinstance(c, ast.Call) and numpy_global_draw(c, ctx)]
        if sampling:  # `sample_to_patches(sample, offset_augment=True)`: a module function the sampling runs
            draws += [(_dataset_of(func, ctx), c) for c in helper_draws(func, ctx) + _method_draws(func, ctx)]
    owned = owned_generator_draw(ctx)  # a transform's or dataset's own generator, copied into every worker
    if owned is not None:
        draws.append((_dataset_of(owned, ctx), owned))
    return _with_subclasses(draws, ctx)


def _transform(func: ast.FunctionDef, ctx: ModuleContext) -> bool:
    """A transform whatever its name: a transform class's `__call__(self, image)`, or the closure a factory
    returns (`def cutout(size, p): def _cutout(image): ...; return _cutout`), taking the sample alone."""
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    parent = ctx.parent(func)
    if func.name == "__call__" and isinstance(parent, ast.ClassDef):
        return len(params) == 2
    if isinstance(parent, ast.FunctionDef) and len(params) == 1:
        return any(isinstance(r, ast.Return) and isinstance(r.value, ast.Name) and r.value.id == func.name
                   for r in parent.body)
    return False


def _seeds_workers(calls, ctx: ModuleContext) -> bool:
    """The file reseeds NumPy (np.random.seed) or reads a worker's seed (`get_worker_info().seed`); asking
    get_worker_info() only for the worker's id (to log or shard) reseeds nothing."""
    names = {ctx.call_name(c) for c in calls}
    return "numpy.random.seed" in names or ("torch.utils.data.get_worker_info" in names and any(
        n.attr == "seed" for n in ctx.by_type.get(ast.Attribute, ())))


def _method_draws(method: ast.FunctionDef, ctx: ModuleContext, depth: int = 2) -> list[ast.Call]:
    """np.random draws of the methods of the same class a sampling method calls (`self._iter_single(i)`, and
    those they call): they run in the worker as the sampling method does."""
    cls = ctx.parent(method)
    if not isinstance(cls, ast.ClassDef):
        return []
    methods = {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef)}
    found, seen, todo = [], {method.name}, [method]
    for _ in range(depth):
        called = [methods[c.func.attr] for f in todo for c in ast.walk(f) if isinstance(c, ast.Call)
                  and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
                  and c.func.value.id == "self" and c.func.attr in methods and c.func.attr not in seen]
        seen |= {f.name for f in called}
        found += [c for f in called for c in ast.walk(f) if isinstance(c, ast.Call) and numpy_global_draw(c, ctx)]
        todo = called
    return found


def _dataset_of(node: ast.AST, ctx: ModuleContext) -> str | None:
    """The Dataset class of this file whose method holds `node`, if any."""
    cls = ctx.enclosing(node, (ast.ClassDef,))
    if cls is None or not _dataset_class(cls, ctx):
        return None
    return cls.name


def _with_subclasses(draws: list, ctx: ModuleContext) -> list:
    """The draws of a dataset class, told also for its subclasses in this file (they inherit the sampling)."""
    owners = {cls for cls, _ in draws if cls is not None}
    for _ in range(3):
        more = {cls.name for cls in ctx.by_type.get(ast.ClassDef, ()) if cls.name not in owners
                and any(isinstance(b, ast.Name) and b.id in owners for b in cls.bases)}
        if not more:
            break
        first = {o: next(d for c, d in draws if c == o) for o in owners}
        for cls in ctx.by_type.get(ast.ClassDef, ()):
            base = next((b.id for b in cls.bases if isinstance(b, ast.Name) and b.id in owners), None)
            if cls.name in more and base is not None:
                draws.append((cls.name, first[base]))
        owners |= more
    return draws


def helper_draws(method: ast.FunctionDef, ctx: ModuleContext, depth: int = 2) -> list[ast.Call]:
    """np.random draws of the module-level functions of this file a sampling method calls (and those they call):
    they run in the DataLoader's workers as the method does."""
    found, seen, todo = [], set(), [method]
    for _ in range(depth):
        called = []
        for func in todo:
            for call in ast.walk(func):
                callee = ctx.functions.get(call.func.id) if isinstance(call, ast.Call) \
                    and isinstance(call.func, ast.Name) else None
                if callee is not None and callee not in seen and isinstance(ctx.parent(callee), ast.Module):
                    seen.add(callee)
                    called.append(callee)
        found += [c for f in called for c in ast.walk(f) if isinstance(c, ast.Call) and numpy_global_draw(c, ctx)]
        todo = called
    return found


def _in_dataset(func: ast.FunctionDef, ctx: ModuleContext) -> bool:
    """A method of a class that derives from torch's Dataset (or a class of this file named as a dataset)."""
    cls = ctx.parent(func)
    return isinstance(cls, ast.ClassDef) and _dataset_class(cls, ctx)


# torch.utils.data classes whose methods run in the main process: a (batch) sampler's __iter__ draws the order
# of indices there, once per epoch, and the workers only receive the indices
MAIN_PROCESS = re.compile(r"Sampler$|DataLoader$")


def _dataset_class(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    names = [ctx.qualname(b) or "" for b in cls.bases]
    return any((n.startswith("torch.utils.data") and not MAIN_PROCESS.search(n)) or "Dataset" in n for n in names)
