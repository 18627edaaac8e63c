import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.shared_augmentation import (
    evaluation_dataset_augmented,
    split_sharing_augmentation,
    validation_over_training_set,
)
from ..helpers.split_read import never_read
from ..rule import Hit, Rule


class EvalSplitSharesAugmentation(Rule):
    """What it does: flags a validation or test split that goes through the training set's random augmentation: the
    part named for evaluation of `train_set, val_set = random_split(dataset, ...)` when the dataset is built with a
    random transform (`transform=Compose([RandomResizedCrop(224), RandomHorizontalFlip(), ...])`, or a dataset class
    of the file whose `__init__` always sets one); and a loader named for validation that reads the training set
    through an index sampler (`DataLoader(train_set, sampler=valid_sampler)`) in a file that builds random transforms.
    Also a dataset built for evaluation (`train=False`, `split='test'`) with a library's random augmentation, directly
    or through a builder of the file (`val_transforms = get_train_transforms(...)`); robustness test sets and
    test-time augmentation (noise, corruption, attacks, TTA) are left alone, and so is a split nothing reads but a
    loader that is itself never read (`self.valid_dl = cycle(DataLoader(self.valid_ds))` with no use of `valid_dl`).

    Why is this bad: `random_split` and index samplers pick rows of one dataset object, and every row is loaded
    through that object's transform. The evaluation images are flipped, cropped and jittered at random, so the
    validation or test metric is measured on other inputs than the model will see, changes from run to run, and the
    checkpoint or early stop chosen on it is chosen on noise.
    """

    code = "MLD056"
    name = "eval-split-shares-augmentation"
    category = "data"
    severity = "warning"
    message = ("{part} is split from a dataset built with random augmentation ({transforms}): its samples are augmented "
               "at random whenever they are evaluated")
    why = "A split of one dataset object loads every row through its transform, augmentation included."
    fix = ("Build the evaluation split from a dataset without random transforms (the same indices over a second "
           "dataset object, or a Subset wrapper that applies its own transform).")
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    call_names = frozenset({"random_split", "DataLoader"})
    requires_text = ("random_split", "Sampler", "train=False", "split=")
    BAD = (
        "import torchvision.transforms as T\n"
        "from torch.utils.data import DataLoader, random_split\n"
        "from torchvision.datasets import ImageFolder\n"
        "def loaders(root):\n"
        "    augment = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor()])\n"
        "    dataset = ImageFolder(root, transform=augment)\n"
        "    train_set, val_set = random_split(dataset, [0.9, 0.1])\n"
        "    return DataLoader(train_set, batch_size=32, shuffle=True), DataLoader(val_set, batch_size=32)\n"
    )
    GOOD = BAD.replace("T.RandomResizedCrop(224), T.RandomHorizontalFlip(), ", "T.Resize(256), T.CenterCrop(224), ")
    BUILT = ("this evaluation dataset ({what}) is built with random augmentation ({transforms}): its samples are "
             "augmented at random whenever they are evaluated")
    SAMPLED = ("{loader} reads {dataset} through an index sampler: its samples are loaded with the training set's "
               "transform, random augmentation included, whenever they are evaluated")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        shared = split_sharing_augmentation(node, ctx)
        if shared is not None:
            part, transforms = shared
            if never_read(part, node, ctx):
                return  # a split no loop, helper or evaluation ever reads: nothing is evaluated augmented
            yield Hit(node, self.message.format(part=part, transforms=", ".join(dict.fromkeys(transforms))))
            return
        dataset = validation_over_training_set(node, ctx)
        if dataset is not None:
            yield Hit(node, self.SAMPLED.format(loader=ast.unparse(ctx.parent(node).targets[0]), dataset=dataset))

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        if not (ctx.has_text("train=False") or ctx.has_text("split=")):
            return
        for call in ctx.by_type.get(ast.Call, ()):
            if call.keywords:
                found = evaluation_dataset_augmented(call, ctx)
                if found is not None:
                    yield Hit(call, self.BUILT.format(what=found[0], transforms=", ".join(dict.fromkeys(found[1]))))
