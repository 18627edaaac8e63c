import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import NOT_TRAINING, name_of
from ..rule import Hit, Rule

SAMPLERS = {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}


class DistributedSamplerWithoutSetEpoch(Rule):
    """What it does: flags a DistributedSampler built in a module that loops over epochs but never
    calls .set_epoch(...) on anything.

    Why is this bad: DistributedSampler seeds its shuffle with seed + epoch, and the epoch only
    changes through set_epoch. Without it every epoch replays the same permutation on every
    rank; training runs normally, with less randomness than intended.
    """

    code = "MLD054"
    name = "distributed-sampler-without-set-epoch"
    category = "data"
    severity = "warning"
    message = "DistributedSampler in a module with an epoch loop but no sampler.set_epoch(epoch) call"
    why = "The shuffle is seeded with the epoch number, which only set_epoch changes: every epoch repeats one order."
    fix = "Call sampler.set_epoch(epoch) at the start of every epoch, before iterating the DataLoader."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    requires_text = ('DistributedSampler',)  # skip modules that cannot contain the pattern
    BAD = (
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def train(model, dataset, step, epochs):\n"
        "    sampler = DistributedSampler(dataset)\n"
        "    loader = DataLoader(dataset, batch_size=32, sampler=sampler)\n"
        "    for epoch in range(epochs):\n"
        "        for batch in loader:\n"
        "            step(model, batch)\n"
    )
    GOOD = (
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def train(model, dataset, step, epochs):\n"
        "    sampler = DistributedSampler(dataset)\n"
        "    loader = DataLoader(dataset, batch_size=32, sampler=sampler)\n"
        "    for epoch in range(epochs):\n"
        "        sampler.set_epoch(epoch)\n"
        "        for batch in loader:\n"
        "            step(model, batch)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.call_name(node) not in SAMPLERS:
            return
        keywords = {k.arg: k.value for k in node.keywords}
        # DistributedSampler(dataset, num_replicas, rank, shuffle, ...): shuffle off or unknown
        shuffle = keywords.get("shuffle", node.args[3] if len(node.args) > 3 else None)
        if None in keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return
        if shuffle is not None and not (isinstance(shuffle, ast.Constant) and shuffle.value is True):
            return
        # evaluation samplers: the order of validation batches does not matter
        parent = ctx.parent(node)
        names = [name_of(node.args[0] if node.args else keywords.get("dataset"))]
        names += [name_of(t) for t in parent.targets] if isinstance(parent, ast.Assign) else []
        if any(NOT_TRAINING.search(n.lower()) for n in names):
            return
        if _sets_epoch(ctx) or not _has_epoch_loop(ctx):
            return
        yield Hit(node)


def _sets_epoch(ctx: ModuleContext) -> bool:
    """`.set_epoch` anywhere: a call on any sampler or loader, or getattr(x, "set_epoch")."""
    return ctx.memo(("mld054", "sets_epoch"), lambda: any(n.attr == "set_epoch" for n in ctx.by_type.get(ast.Attribute, ())) or any(
        n.value == "set_epoch" for n in ctx.by_type.get(ast.Constant, ())))


def _has_epoch_loop(ctx: ModuleContext) -> bool:
    """`for epoch in ...`, `for _ in range(num_epochs)`, `while epoch < max_epochs`."""
    for loop in ctx.by_type.get(ast.For, []) + ctx.by_type.get(ast.AsyncFor, []) + ctx.by_type.get(ast.While, []):
        head = [loop.test] if isinstance(loop, ast.While) else [loop.target, loop.iter]
        names = [n.id if isinstance(n, ast.Name) else n.attr for h in head for n in ast.walk(h)
                 if isinstance(n, ast.Name | ast.Attribute)]
        if any("epoch" in name.lower() for name in names):
            return True
    return False
