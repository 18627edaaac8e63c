import ast
import os
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import DATALOADERS, NOT_TRAINING, name_of
from ..helpers.graph import callee
from ..helpers.loader_cycles import endless_passes
from ..helpers.loader_epoch_once import set_epoch_once
from ..helpers.loader_facts import SETS_EPOCH, told_in_scope
from ..helpers.loader_origin import DISTRIBUTED, UNKNOWN, sampler_feeding, train_loader_named
from ..helpers.loader_sites import (
    EPOCH_SETTER,
    ITERATORS,
    NOT_RUNNING,
    SHARDED,
    counted_loops,
    has_epoch_loop,
    set_epoch_place,
)
from ..helpers.optim_steps import local_callee
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
    by a helper of the file (`sampler=data_sampler(dataset, shuffle=True)`) counts. The epoch loop
    over a train loader built elsewhere (or a dict of loaders) is flagged right before the statement
    that runs the loader, where the call goes, when no file calls set_epoch and that loader is tied to
    a DistributedSampler: the data factory it comes from builds one (`create_dataloader(cfg)` of
    another file, as the project index tells), it is handed a `sampler=` this file does not build, another
    file's call hands such a loader to this file's function (`train_validate_test(model, opt, train_loader)`),
    or it is handed in from outside to a file that trains with DistributedDataParallel. Left quiet, whatever
    other file of the run builds a DistributedSampler: a library loader built on its own sampler
    (`NeighborLoader(data, shuffle=True)`, `ThreadDataLoader(ds, shuffle=True)`), a loader from a factory
    that builds none (`get_dali_dataloader(...)`, nnUNet's augmenters), and one handed in to a file that
    does not train with DDP (`self.data.train_dl`). A train sampler whose shuffle comes from a config
    counts as shuffling.

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
    # skip modules that cannot contain the pattern (an endless cycler of a loader handed in: "while True"; an
    # epoch loop over a train loader built with a sampler in another file)
    requires_text = ("DistributedSampler", *DDP_TEXT, "while True", "epoch")
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

    ONCE = ("set_epoch runs once, before the run that iterates this loader for many epochs: every epoch after "
            "the first repeats its shuffle; call it at the start of every epoch (an epoch-start handler or the "
            "top of the epoch loop)")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        once = set_epoch_once(ctx)
        # another file that calls set_epoch may set it per epoch (this file's own fact is the once-call)
        teller = told_in_scope(ctx, SETS_EPOCH) if once else None
        if once and teller in (None, os.path.basename(ctx.path)) and not _calls_an_epoch_setter(ctx, local=False):
            for call in once:
                yield Hit(call, self.ONCE)
        sampler_text = ctx.has_text("DistributedSampler") or any(map(ctx.has_text, DDP_TEXT))
        if not sampler_text and not ctx.has_text("while True") and not _sharded_elsewhere(ctx):
            return  # only "epoch" in the text: the loader's sampler must come from another file of the run
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
                built = told_in_scope(ctx, SHARDED)
                if built and (loop.lineno, loop.col_offset) not in reported:
                    reported.add((loop.lineno, loop.col_offset))
                    yield Hit(loop, self.message + f" (a DistributedSampler is built at {built})")
        elsewhere = told_in_scope(ctx, SETS_EPOCH)
        if not elsewhere and (any(map(ctx.has_text, DDP_TEXT)) or not samplers and (
                ctx.has_text("DistributedSampler") or _sharded_elsewhere(ctx))):
            # DDP training, a file that knows of distributed samplers, or a run where another file shards a
            # loader with one, over a train loader built elsewhere; quiet when any file calls set_epoch
            for loop in counted_loops(ctx):
                # one finding per missing call: an epoch loop already flagged for a sampler of this file is not
                # flagged again for the loader it runs (`for _ in trange(epochs): ... for batch in tqdm(loader)`)
                flagged = any(loop.lineno <= line <= (loop.end_lineno or loop.lineno) for line, _ in reported)
                where = _iterates_unseen_train_loader(loop, ctx) if not flagged else None
                if where is not None:
                    reported.add((loop.lineno, loop.col_offset))
                    yield Hit(where, self.message.replace("DistributedSampler", "the train loader's sampler"))


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


def _sharded_elsewhere(ctx: ModuleContext) -> bool:
    """Another file of the run builds a DistributedSampler that may shuffle, and no file calls set_epoch."""
    return bool(told_in_scope(ctx, SHARDED)) and not told_in_scope(ctx, SETS_EPOCH)


def _calls_an_epoch_setter(ctx: ModuleContext, local: bool = True) -> bool:
    """A call, anywhere in this file, of a function of another file which calls set_epoch (the project index):
    the epoch loop may reach it through a local per-epoch function (`train_epoch` calling `loader.shuffle`).
    local=False: a function this file defines (the one that calls set_epoch once) does not count."""
    project = ctx.project
    if project is None:
        return False
    for call in ctx.by_type.get(ast.Call, ()):
        name = callee(call.func)
        if name and (local or name not in ctx.functions) and project.kind_returned_by(EPOCH_SETTER + name):
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
    parent = ctx.parent(call)
    names = [name_of(call.args[0] if call.args else keywords.get("dataset"))]
    names += [name_of(t) for t in parent.targets] if isinstance(parent, ast.Assign) else []
    # a setting read from a config (`shuffle=opt["dataloader_shuffle"]`) for the training set shuffles
    configured = not isinstance(shuffle, ast.Constant | ast.Name) and any("train" in n.lower() for n in names)
    if shuffle is not None and not (isinstance(shuffle, ast.Constant) and shuffle.value is True) \
            and not _parameter_given_true(shuffle, call, ctx) and not configured:
        return False
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


def _iterates_unseen_train_loader(loop: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """Where set_epoch belongs in an epoch loop whose inner loop runs over a train loader this file does not
    build (`data.train_loader`), or that hands one (or a dict of loaders) to a call each epoch
    (`train(train_loader, model, optimizer)`): right before the statement of the loop's body that runs it."""
    for inner in ast.walk(loop):
        if isinstance(inner, ast.Call):
            if name_of(inner.func).rsplit(".", 1)[-1] in ITERATORS | NOT_RUNNING:
                continue  # wrapped for the inner loop below, or not run
            sources = [*inner.args, *(k.value for k in inner.keywords)]
        elif isinstance(inner, ast.For | ast.AsyncFor) and inner is not loop:
            source = inner.iter
            if isinstance(source, ast.Call) and source.args and name_of(source.func).rsplit(".", 1)[-1] in ITERATORS:
                source = source.args[0]
            sources = [source]
        else:
            continue
        for source in sources:
            if _unseen_train_loader(source, ctx):
                # a helper that loops over the loader it is handed: set_epoch goes in there when only the helper's
                # object counts the epochs (`while self._epoch < n: self.train(loader)`); an epoch loop with its own
                # counter (`for epoch in range(n)`) sets it before the call
                handed = _handed_pass(inner, source, ctx) if isinstance(inner, ast.Call) \
                    and not _named_counter(loop) else None
                inside = (_per_loader_pass(inner, source, ctx) or handed) if isinstance(inner, ast.Call) else None
                return inside or _before(inner, loop)
        if isinstance(inner, ast.Call) and not _epoch_handed_out_of_sight(loop, ctx):
            inside = _per_epoch_pass(inner, ctx)
            if inside is not None:
                return inside
    return None


def _named_counter(loop: ast.AST) -> bool:
    """`for epoch in range(n)`, `for i, epoch in enumerate(...)`: the loop names its count (not `_`)."""
    return isinstance(loop, ast.For | ast.AsyncFor) and any(
        isinstance(n, ast.Name) and not n.id.startswith("_") for n in ast.walk(loop.target))


def _handed_pass(call: ast.Call, source: ast.expr, ctx: ModuleContext) -> ast.AST | None:
    """`self.train(train_loader)`, a method of this file that loops over the loader it is handed (also kept on self
    first: `self.data_loader = data_loader`): before the statement of its body that holds that loop."""
    func = local_callee(call, ctx)
    if func is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    params = params[1:] if params[:1] == ["self"] and isinstance(call.func, ast.Attribute) else params
    slot = next((i for i, a in enumerate(call.args) if a is source), None)
    param = params[slot] if slot is not None and slot < len(params) else next(
        (k.arg for k in call.keywords if k.value is source), None)
    if param is None:
        return None
    held = {param} | {ast.unparse(t) for a in ast.walk(func) if isinstance(a, ast.Assign) and isinstance(
        a.value, ast.Name) and a.value.id == param for t in a.targets}
    for inner, iterated in _loops_over(func):
        if ast.unparse(iterated) in held:
            return _before(inner, func)
    return None


def _loops_over(func: ast.AST) -> Iterator[tuple[ast.For | ast.AsyncFor, ast.expr]]:
    """Each for loop in `func`, with what it runs over under its iterator wrappers (`enumerate(tqdm(loader))`)."""
    for inner in ast.walk(func):
        if isinstance(inner, ast.For | ast.AsyncFor):
            source = inner.iter
            while isinstance(source, ast.Call) and source.args and name_of(source.func).rsplit(".", 1)[-1] in ITERATORS:
                source = source.args[0]
            yield inner, source


def _epoch_handed_out_of_sight(loop: ast.AST, ctx: ModuleContext) -> bool:
    """The epoch loop hands its counter to a call we cannot read (`box.pre_epoch_process(epoch=epoch)`, a hook of
    another file): that call may set the sampler's epoch. Printing, logging and saving it do not."""
    counter = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)} if isinstance(loop, ast.For) else set()
    for call in ast.walk(loop):
        if not isinstance(call, ast.Call) or local_callee(call, ctx) is not None \
                or callee(call.func) in {"print", "save", "info", "log", "debug", "format", "add_scalar", "log_dict"}:
            continue
        if any(isinstance(a, ast.Name) and a.id in counter for a in [*call.args, *(k.value for k in call.keywords)]):
            return True
    return False


def _unseen_train_loader(source: ast.expr, ctx: ModuleContext) -> bool:
    """A train loader this file does not build, which a DistributedSampler feeds: its `sampler=`, or the data
    factory it comes from (`create_dataloader(cfg)`, which the project index says builds one); or one handed in
    from outside (`self.train_loader = train_loader`) in a file that trains with DistributedDataParallel. Not a
    library loader built on its own sampler (`NeighborLoader(data, shuffle=True)`), one from a factory building no
    DistributedSampler (`get_dali_dataloader(...)`), nor one handed in to a file that does not train with DDP
    (`self.data.train_dl`), whatever other file of the run builds a DistributedSampler."""
    if not (train_loader_named(source) or _asked_for_train_split(source, ctx)) or _built_here(source, ctx):
        return False
    feeding = sampler_feeding(source, ctx)
    return feeding == DISTRIBUTED or feeding == UNKNOWN and any(map(ctx.has_text, DDP_TEXT))


def _asked_for_train_split(source: ast.expr, ctx: ModuleContext) -> bool:
    """`dataloader = self.downstream.get_dataloader('train')`: a loader another object builds for the train split."""
    value = ctx.resolve(source) if isinstance(source, ast.Name) else None
    if not isinstance(value, ast.Call) or "loader" not in name_of(value.func).lower():
        return False
    given = [*value.args, *(k.value for k in value.keywords)]
    return any(isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.lower() in {"train", "training"}
               for a in given)


def _per_epoch_pass(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """`self.train_epoch(epoch)`, a function of this file run each epoch, whose batch loop runs over a train loader
    this file does not build (`for x, y in self.train_dl:`): at its top, before the statement holding that loop."""
    func = local_callee(call, ctx)
    if func is None:
        return None
    for inner, source in _loops_over(func):
        if _unseen_train_loader(source, ctx):
            return _before(inner, func)
    return None


def _per_loader_pass(call: ast.Call, source: ast.expr, ctx: ModuleContext) -> ast.AST | None:
    """`self._run_epoch(loaders)` whose method loops over the loaders it is given (`for name in loaders:
    ... self._run_loader(loaders[name])`): right before the statement that runs each one."""
    callee = call.func
    cls = ctx.enclosing(call, (ast.ClassDef,))
    if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self" \
            and cls is not None:
        func = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == callee.attr), None)
    else:
        func = ctx.functions.get(callee.id) if isinstance(callee, ast.Name) else None
    if func is None:
        return None
    params = [a.arg for a in func.args.args if a.arg != "self"]
    slot = next((i for i, a in enumerate(call.args) if a is source), None)
    param = params[slot] if slot is not None and slot < len(params) else None
    for loop in ast.walk(func):
        if not isinstance(loop, ast.For) or param is None or param not in {
                n.id for n in ast.walk(loop.iter) if isinstance(n, ast.Name)}:
            continue
        runner = next((c for c in ast.walk(loop) if isinstance(c, ast.Call) and c is not loop.iter
                       and name_of(c.func).rsplit(".", 1)[-1] not in NOT_RUNNING and any(
            isinstance(n, ast.Name) and n.id == param for a in c.args for n in ast.walk(a))), None)
        if runner is not None:
            return _before(runner, loop)
    return None


def _built_here(source: ast.expr, ctx: ModuleContext) -> bool:
    """The loader comes from a DataLoader(...) of this file or a function of this file (which shows its sampler);
    what another object hands over (`self.experiment.get_loaders(stage)`) is built elsewhere."""
    value = ctx.resolve(source)
    if not isinstance(value, ast.Call):
        return False
    name = ctx.call_name(value) or name_of(value.func)
    return name in DATALOADERS or name.endswith("DataLoader") or name in ctx.functions


def _before(inner: ast.AST, loop: ast.AST) -> ast.AST:
    """The statement of `loop`'s body before the one holding `inner` (that one when it comes first)."""
    body = loop.body
    for index, statement in enumerate(body):
        if any(n is inner for n in ast.walk(statement)):
            return body[index - 1] if index else statement
    return body[0]
