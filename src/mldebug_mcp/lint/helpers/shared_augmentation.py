"""An evaluation split that goes through the training set's random augmentation (MLD056): the validation or test part
of `random_split(dataset, ...)` whose dataset is built with a random transform (PointFusion, the VQGAN trainers of
DALLE2-pytorch and muse; lightning-pose's fix, blind split 18), or a validation loader that reads the training set
through an index sampler (`DataLoader(train_set, sampler=valid_sampler)`, efficient_densenet_pytorch) in a file that
augments."""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .data import EVALUATION_NAME, name_of
from .evaluation import EVAL_WORDS
from .graph import callee

# torchvision / albumentations / kornia transforms that draw at random, by class name (not RandomSampler & co.)
RANDOM_TRANSFORM = re.compile(r"^(Random(?!Sampler|State|Generator|Split)\w+|ColorJitter|RandAugment|AutoAugment|"
                              r"TrivialAugmentWide|AugMix|"
                              r"HorizontalFlip|VerticalFlip|ShiftScaleRotate|CoarseDropout)$")
SPLITS = {"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"}
SAMPLERS = {"SubsetRandomSampler", "SubsetSampler"}


def random_transforms(node: ast.AST | None, ctx: ModuleContext, depth: int = 2) -> list[str]:
    """The random transforms a transform expression builds (`T.Compose([T.RandomHorizontalFlip(), ...])`), through
    a name it was assigned to."""
    if node is None or depth < 0:
        return []
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            if RANDOM_TRANSFORM.match(callee(sub.func)):
                found.append(callee(sub.func))
            elif depth and isinstance(sub.func, ast.Name) and sub.func.id in ctx.functions:
                # `get_train_transforms(mean, std)`: what a builder of this file returns
                for ret in ast.walk(ctx.functions[sub.func.id]):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        found += random_transforms(ret.value, ctx, depth - 1)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and depth:
            value = ctx.resolve(sub)
            if value is not sub and isinstance(value, ast.expr):
                found += random_transforms(value, ctx, depth - 1)
    return found


def dataset_augments(dataset: ast.expr, ctx: ModuleContext) -> list[str]:
    """The random transforms the dataset was built with: its `transform=` (or `transforms=`) argument, or, for a
    class of this file, what its __init__ assigns to `self.transform` whatever it is given."""
    built = ctx.resolve(dataset)
    if not isinstance(built, ast.Call):
        return []
    given = [k.value for k in built.keywords if k.arg in {"transform", "transforms", "augment", "augmentation"}]
    # a transform picked at run time (`transform_dict[phase]`, `aug if train else plain`) may be the plain one
    found = [t for value in given if not isinstance(value, ast.Subscript | ast.IfExp)
             for t in random_transforms(value, ctx)]
    if found:
        return found
    name = built.func.id if isinstance(built.func, ast.Name) else None
    cls = ctx.classes.get(name) if name else None
    init = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None) if cls else None
    if init is None:
        return []
    for stmt in init.body:  # unconditional: a transform chosen by a train flag is not this
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Attribute) and "transform" in t.attr
                                                for t in stmt.targets):
            found += random_transforms(stmt.value, ctx)
    return found


def split_sharing_augmentation(call: ast.Call, ctx: ModuleContext) -> tuple[str, list[str]] | None:
    """(the evaluation part's name, the random transforms) when `call` is `a, b = random_split(dataset, ...)` with
    a part named for evaluation and the dataset built with random augmentation."""
    if ctx.call_name(call) not in SPLITS or not call.args:
        return None
    parent = ctx.parent(call)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Tuple)):
        return None
    names = [name_of(t) for t in parent.targets[0].elts]
    evaluated = next((n for n in names if EVALUATION_NAME.search(n) and "train" not in n.lower()), None)
    if evaluated is None:
        return None
    found = dataset_augments(call.args[0], ctx)
    return (evaluated, found) if found else None


def validation_over_training_set(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The training set's name when `call` builds a loader named for validation over it through an index sampler,
    in a file that builds random transforms."""
    parent = ctx.parent(call)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1):
        return None
    loader = name_of(parent.targets[0])
    keywords = {k.arg: k.value for k in call.keywords}
    dataset = call.args[0] if call.args else keywords.get("dataset")
    sampler = keywords.get("sampler")
    if dataset is None or sampler is None or not EVALUATION_NAME.search(loader) or "train" in loader.lower():
        return None
    read = name_of(dataset)
    if "train" not in read.lower() or not _index_sampler(sampler, ctx):
        return None
    return read if _file_augments(ctx) else None


def _index_sampler(sampler: ast.expr, ctx: ModuleContext) -> bool:
    built = ctx.resolve(sampler)
    return isinstance(built, ast.Call) and callee(built.func) in SAMPLERS


def _file_augments(ctx: ModuleContext) -> bool:
    return ctx.memo(("mld056", "augments"), lambda: any(
        RANDOM_TRANSFORM.match(callee(c.func)) for c in ctx.by_type.get(ast.Call, ())))


def evaluation_dataset_augmented(call: ast.Call, ctx: ModuleContext) -> tuple[str, list[str]] | None:
    """(what names it for evaluation, the random transforms) for a dataset built for evaluation with a random
    augmentation: `CIFAR10(root, train=False, transform=val_transforms)` where `val_transforms =
    get_train_transforms(...)` (image-classification-codebase), or `MyCelebA(..., split='test',
    transform=Compose([RandomHorizontalFlip(), ...]))`."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    given = keywords.get("transform", keywords.get("transforms"))
    if given is None or isinstance(given, ast.Subscript | ast.IfExp):
        return None
    train = keywords.get("train")
    split = next((keywords[k] for k in ("split", "mode", "phase", "subset") if k in keywords), None)
    if isinstance(train, ast.Constant) and train.value is False:
        what = "train=False"
    elif isinstance(split, ast.Constant) and isinstance(split.value, str) and split.value.lower() in EVAL_WORDS:
        what = f"{split.value!r}"
    else:
        return None
    parent = ctx.parent(call)
    named = " ".join([ast.unparse(given), *(ast.unparse(t) for t in getattr(parent, "targets", ()))])
    if DELIBERATE.search(named):
        return None  # a robustness test set (`noise_set`, `corrupt_transform`) or test-time augmentation
    function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is not None and DELIBERATE.search(function.name):
        return None
    found = [t for t in random_transforms(given, ctx) if t in LIBRARY_AUGMENTATIONS or t.startswith("Random")
             and _library_class(t, ctx)]
    return (what, found) if found else None


# the augmentations of torchvision, albumentations and kornia this reading knows by name (a project's own
# `RandomNoise` is more often a robustness test than a training augmentation)
LIBRARY_AUGMENTATIONS = {"ColorJitter", "RandAugment", "AutoAugment", "TrivialAugmentWide", "AugMix", "HorizontalFlip",
                         "VerticalFlip", "ShiftScaleRotate", "CoarseDropout"}


def _library_class(name: str, ctx: ModuleContext) -> bool:
    """`RandomCrop` imported from torchvision, albumentations, kornia or monai, or reached as an attribute
    (`T.RandomCrop`) in a file that imports one of them; not a class of this file or of another project module."""
    if name in ctx.classes:
        return False
    qualified = ctx.aliases.get(name, "")
    if qualified:
        return qualified.startswith(("torchvision.", "albumentations", "kornia", "monai"))
    return any(v.startswith(("torchvision", "albumentations", "kornia", "monai")) for v in ctx.aliases.values())


DELIBERATE = re.compile(r"noise|corrupt|robust|perturb|attack|adversar|tta", re.IGNORECASE)
