import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import DATALOADERS, NOT_TRAINING, name_of
from ..helpers.loader_cycles import endless_passes
from ..helpers.loader_sites import (
    EPOCH_SETTER,
    ITERATORS,
    SHARDED,
    epoch_loops,
    has_epoch_loop,
    set_epoch_place,
)
from ..rule import Hit, Rule

SAMPLERS = {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
# frameworks that call set_epoch on the samplers of the loaders they run
FRAMEWORKS = ("accelerate", "pytorch_lightning", "lightning", "ignite", "transformers.Trainer", "composer")
# a file that trains with DistributedDataParallel (or Horovod) shards its data with a distributed sampler
DDP_TEXT = ("DistributedDataParallel", "init_process_group", "horovod")


class DistributedSamplerWithoutSetEpoch(Rule):
    """What it does: flags a shuffling DistributedSampler whose loader is iterated epoch after epoch
    while nothing calls .set_epoch(...): at the top of the epoch loop that re-iterates the loader
    (also when the loader is handed to a training function, a trainer class or a dict of loaders, or
    wrapped by another library's call whose result is looped over), at the `while True:` of an endless
    batch generator (`def sample_data(loader): while True: for batch in loader: yield batch`), at the
    end of a per-epoch method, or where the sampler is built when no loop is visible. A sampler built
    by a helper of the file (`sampler=data_sampler(dataset, shuffle=True)`) counts. A file
    that trains with DistributedDataParallel and loops over epochs of a train loader built elsewhere
    is flagged at that loop.

    Why is this bad: DistributedSampler seeds its shuffle with seed + epoch, and the epoch only
    changes through set_epoch. Without it every epoch replays the same permutation on every
    rank; training runs normally, with less randomness than intended.
    """

    code = "MLD054"
    name = "distributed-sampler-without-set-epoch"
    category = "data"
    severity = "warning"
    message = "DistributedSampler never gets set_epoch(epoch): every epoch repeats the same shuffle"
    why = "The shuffle is seeded with the epoch number, which only set_epoch changes: every epoch repeats one order."
    fix = "Call sampler.set_epoch(epoch) at the start of every epoch, before iterating the DataLoader."
    evidence = "pytorch-docs"
    node_types = (ast.Module,)
    # skip modules that cannot contain the pattern (an endless cycler of a loader handed in: "while True")
    requires_text = ("DistributedSampler", *DDP_TEXT, "while True")
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
        if _sets_epoch(ctx) or _framework(ctx) or _calls_an_epoch_setter(ctx):
            return
        samplers = [c for c in ctx.by_type.get(ast.Call, ()) if _shuffling_sampler(c, ctx)]
        samplers.sort(key=lambda c: (c.lineno, c.col_offset))
        reported, placed = set(), set()
        for loader, sampler in _loaders(ctx, samplers):
            where = set_epoch_place(loader, ctx)
            if where is None:
                continue
            placed.add(sampler)
            if (where.lineno, where.col_offset) not in reported:
                reported.add((where.lineno, where.col_offset))
                yield Hit(where, self.message + f" (the sampler of line {sampler.lineno})")
        for sampler in samplers:  # no iteration of its loader seen here: at its construction
            if sampler not in placed and has_epoch_loop(ctx):
                yield Hit(sampler)
        if not samplers and ctx.project is not None:
            # an endless cycler of a loader handed in, in a run where another file shards one with a sampler
            for loop in endless_passes(ctx):
                built = ctx.project.kind_returned_by(SHARDED)
                if built and (loop.lineno, loop.col_offset) not in reported:
                    reported.add((loop.lineno, loop.col_offset))
                    yield Hit(loop, self.message + f" (a DistributedSampler is built at {built})")
        if any(map(ctx.has_text, DDP_TEXT)) or (not samplers and ctx.has_text("DistributedSampler")):
            # DDP training, or a file that knows of distributed samplers, over a train loader built elsewhere
            for loop in epoch_loops(ctx):
                if (loop.lineno, loop.col_offset) not in reported and _iterates_unseen_train_loader(loop, ctx):
                    reported.add((loop.lineno, loop.col_offset))
                    yield Hit(loop, self.message.replace("DistributedSampler", "the train loader's sampler"))


def _sets_epoch(ctx: ModuleContext) -> bool:
    """`.set_epoch` anywhere (on any sampler or loader, or a helper named for it), or getattr(x, "set_epoch")."""
    def look() -> bool:
        for node in ctx.by_type.get(ast.Attribute, ()):
            if "set_epoch" in node.attr:
                return True
        for node in ctx.by_type.get(ast.Name, ()):
            if "set_epoch" in node.id:
                return True
        return any(n.value == "set_epoch" for n in ctx.by_type.get(ast.Constant, ()))

    return ctx.has_text("set_epoch") and ctx.memo(("mld054", "sets_epoch"), look)


def _calls_an_epoch_setter(ctx: ModuleContext) -> bool:
    """An epoch loop that calls a function of another file which calls set_epoch (the project index)."""
    project = ctx.project
    if project is None:
        return False
    for loop in epoch_loops(ctx):
        for call in ast.walk(loop):
            if isinstance(call, ast.Call):
                callee = call.func
                name = callee.id if isinstance(callee, ast.Name) else getattr(callee, "attr", None)
                if name and project.kind_returned_by(EPOCH_SETTER + name):
                    return True
    return False


def _framework(ctx: ModuleContext) -> bool:
    return any(name.startswith(FRAMEWORKS) for name in ctx.aliases.values())


def _shuffling_sampler(call: ast.Call, ctx: ModuleContext) -> bool:
    """A DistributedSampler(...) for training data that shuffles (the default); also a call of a name that
    holds the class (`sampler_cls = RandomSampler if local else DistributedSampler`)."""
    name = ctx.call_name(call)
    if name not in SAMPLERS:
        held = [v for v in ctx.values_of(call.func) if isinstance(call.func, ast.Name)]
        if not any(ctx.qualname(n) in SAMPLERS for v in held for n in ast.walk(v)
                   if isinstance(n, ast.Name | ast.Attribute)):
            return False
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    # DistributedSampler(dataset, num_replicas, rank, shuffle, ...): shuffle off or unknown
    shuffle = keywords.get("shuffle", call.args[3] if len(call.args) > 3 else None)
    if shuffle is not None and not (isinstance(shuffle, ast.Constant) and shuffle.value is True) \
            and not _parameter_given_true(shuffle, call, ctx):
        return False
    parent = ctx.parent(call)
    names = [name_of(call.args[0] if call.args else keywords.get("dataset"))]
    names += [name_of(t) for t in parent.targets] if isinstance(parent, ast.Assign) else []
    return not any(NOT_TRAINING.search(n.lower()) for n in names)  # the order of evaluation batches is moot


def _loaders(ctx: ModuleContext, samplers: list[ast.Call]) -> list[tuple[ast.Call, ast.Call]]:
    """(DataLoader(...), its sampler) for each loader built here on one of `samplers`."""
    found = []
    for call in ctx.by_type.get(ast.Call, ()):
        if ctx.call_name(call) not in DATALOADERS and not (ctx.call_name(call) or "").endswith("DataLoader"):
            continue
        given = next((k.value for k in call.keywords if k.arg == "sampler"), None)
        if given is None:
            continue
        held = _held(given, ctx)
        held += [branch for h in held if isinstance(h, ast.IfExp) for branch in (h.body, h.orelse)]
        sampler = next((s for s in samplers if any(h is s for h in held)), None)
        if sampler is not None:
            found.append((call, sampler))
    return sorted(found, key=lambda f: (f[0].lineno, f[0].col_offset))


def _parameter_given_true(value: ast.expr, call: ast.Call, ctx: ModuleContext) -> bool:
    """`shuffle=shuffle` inside `def data_sampler(dataset, shuffle, distributed)`: some call of that function of
    this file passes True (or leaves a True default)."""
    func = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    if not isinstance(value, ast.Name) or func is None or ctx.functions.get(func.name) is not func:
        return False
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    if value.id not in params:
        return False
    index = params.index(value.id)
    defaults = dict(zip(params[len(params) - len(func.args.defaults):], func.args.defaults, strict=False))
    for site in ctx.by_type.get(ast.Call, ()):
        if not (isinstance(site.func, ast.Name) and site.func.id == func.name):
            continue
        given = next((k.value for k in site.keywords if k.arg == value.id),
                     site.args[index] if index < len(site.args) else defaults.get(value.id))
        if isinstance(given, ast.Constant) and given.value is True:
            return True
    return False


def _held(given: ast.expr, ctx: ModuleContext) -> list[ast.expr]:
    """What `sampler=` may be: the expression, what a name holds, the entry of a dict (`samplers["train"]`),
    what a function of this file returns (`sampler=data_sampler(dataset, shuffle=True)`)."""
    if isinstance(given, ast.Call) and isinstance(given.func, ast.Name) and given.func.id in ctx.functions:
        return [given, *ctx.returns.get(ctx.functions[given.func.id], ())]
    if isinstance(given, ast.Name | ast.Attribute):
        return [given, *ctx.values_of(given)]
    if isinstance(given, ast.Subscript) and isinstance(given.slice, ast.Constant):
        entries = []
        for table in ctx.values_of(given.value):
            if isinstance(table, ast.Dict):
                entries += [v for k, v in zip(table.keys, table.values, strict=False)
                            if isinstance(k, ast.Constant) and k.value == given.slice.value]
        return entries
    return [given]


def _iterates_unseen_train_loader(loop: ast.AST, ctx: ModuleContext) -> bool:
    """An epoch loop whose inner loop runs over a train loader this file does not build (`data.train_loader`)."""
    for inner in ast.walk(loop):
        if not isinstance(inner, ast.For | ast.AsyncFor) or inner is loop:
            continue
        source = inner.iter
        if isinstance(source, ast.Call) and source.args and name_of(source.func).rsplit(".", 1)[-1] in ITERATORS:
            source = source.args[0]
        words = name_of(source).lower().rsplit(".", 1)[-1]
        if "train" in words and "loader" in words and not isinstance(ctx.resolve(source), ast.Call):
            return True
    return False
