"""Project facts about data loading that other files of a run need (MLD053, MLD054): whether any file calls
set_epoch at all (a hook, a callback, a trainer's loader-start event), and where a file draws augmentation
randomness that DataLoader workers duplicate: from NumPy's global RNG (in a Dataset's sampling methods, or in
augmentation functions a dataset of another file calls), or from a library transform that owns a generator."""

import ast
import os
import re

from ..context import ModuleContext
from .loader_owned_rng import NUMPY_GLOBAL_DRAWS, owned_generator_draw

SETS_EPOCH = "sets-epoch"  # project fact: some file of the run calls .set_epoch(...)
NUMPY_DRAWS = "numpy-rng-data"  # project fact: a file draws data randomness from np.random's global state
# functions whose name says they transform a sample at random (augmentation of a data pipeline)
AUGMENTING = re.compile(r"augment|random_?(flip|crop|rot|scale|shift|jitter|noise|erase|resize)|jitter|perturb")


def loader_facts(ctx: ModuleContext) -> dict[str, str]:
    found = {}
    if ctx.has_text("set_epoch") and (
            any("set_epoch" in n.attr and not _in_named_helper(n, ctx) for n in ctx.by_type.get(ast.Attribute, ()))
            or any(n.value == "set_epoch" for n in ctx.by_type.get(ast.Constant, ()))):
        found[SETS_EPOCH] = os.path.basename(ctx.path)
    if ctx.has_text("random") or ctx.has_text("Rand") or ctx.has_text("lhotse") or ctx.has_text("rng"):
        draw = _augmenting_numpy_draw(ctx)
        if draw is not None:
            found[NUMPY_DRAWS] = f"{os.path.basename(ctx.path)}:{draw.lineno}"
    return found


# a function a framework calls at an event (`before_epoch`, `on_train_epoch_start`, `epoch_hook`)
HOOK_NAME = re.compile(r"^_*(on|before|after|pre|post)_|hook|callback|epoch_(start|begin|end)")


def _in_named_helper(node: ast.AST, ctx: ModuleContext) -> bool:
    """Inside a module-level function not named for an event: a helper that works only where it is called by
    name, which MLD054 checks at the epoch loop (the `sets_epoch:` facts); hooks and callback methods are
    called by their framework instead."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return function is not None and isinstance(ctx.parent(function), ast.Module) \
        and not HOOK_NAME.search(function.name.lower())


# lhotse's random augmentations of a dataset: its maintainers seed each worker for them (fix_random_seed)
LHOTSE_RANDOM = {"CutMix", "SpecAugment", "PerturbSpeed", "PerturbTempo", "PerturbVolume", "RandomizedSmoothing"}


def library_generator(call: ast.Call, ctx: ModuleContext) -> bool:
    """A MONAI random transform (`monai.transforms.RandScaleIntensity(...)`): it owns a NumPy RandomState made
    once, which every DataLoader worker receives as an identical copy (torch reseeds no such object); a lhotse
    random augmentation (`lhotse.dataset.SpecAugment(...)`), which draws from the process's NumPy/random state."""
    name = ctx.call_name(call) or ""
    short = name.rsplit(".", 1)[-1]
    return name.startswith("monai.") and short.startswith("Rand") or name.startswith("lhotse.") and short in LHOTSE_RANDOM


def numpy_global_draw(call: ast.Call, ctx: ModuleContext) -> bool:
    name = ctx.call_name(call) or ""
    return name.startswith("numpy.random.") and name.rsplit(".", 1)[1] in NUMPY_GLOBAL_DRAWS


def _augmenting_numpy_draw(ctx: ModuleContext) -> ast.Call | None:
    """The first draw from np.random's global state in a function named for random augmentation
    (`random_flip_along_x`, `augment`), in a file that never seeds NumPy itself."""
    calls = ctx.by_type.get(ast.Call, ())
    # a qualified name starts with an import's module or a local class or function: the calls each test looks
    # for need one of these roots (most files import neither numpy, monai nor lhotse)
    roots = {alias.partition(".")[0] for alias in ctx.aliases.values()} | ctx.classes.keys() | ctx.functions.keys()
    numpy = "numpy" in roots
    if (numpy or "torch" in roots) and any(
            (ctx.call_name(c) or "") in ("numpy.random.seed", "torch.utils.data.get_worker_info") for c in calls):
        return None
    if "monai" in roots or "lhotse" in roots:
        library = next((c for c in calls if library_generator(c, ctx)), None)
        if library is not None:
            return library
    draws = []
    for func in ctx.by_type.get(ast.FunctionDef, ()) if numpy else ():  # numpy_global_draw: numpy.random.*
        sampling = func.name in ("__getitem__", "__getitems__", "__iter__") and _in_dataset(func, ctx)
        if sampling or AUGMENTING.search(func.name.lower()):
            draws += [c for c in ast.walk(func) if isinstance(c, ast.Call) and numpy_global_draw(c, ctx)]
        if sampling:  # `sample_to_patches(sample, offset_augment=True)`: a module function the sampling runs
            draws += helper_draws(func, ctx)
    owned = owned_generator_draw(ctx)  # a transform's or dataset's own generator, copied into every worker
    draws += [owned] if owned is not None else []
    return min(draws, key=lambda c: (c.lineno, c.col_offset), default=None)


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
    if not isinstance(cls, ast.ClassDef):
        return False
    return any((ctx.qualname(b) or "").startswith("torch.utils.data") or "Dataset" in (ctx.qualname(b) or "")
               for b in cls.bases)
