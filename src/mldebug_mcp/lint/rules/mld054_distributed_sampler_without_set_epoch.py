import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.data import DATALOADERS, NOT_TRAINING, name_of
from ..rule import Hit, Rule

SAMPLERS = {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
# calls that iterate the loader they are given (or wrap it for a loop)
ITERATORS = frozenset({"enumerate", "iter", "zip", "tqdm", "trange", "cycle"})
# frameworks that call set_epoch on the samplers of the loaders they run
FRAMEWORKS = ("accelerate", "pytorch_lightning", "lightning", "ignite", "transformers.Trainer", "composer")
# a file that trains with DistributedDataParallel (or Horovod) shards its data with a distributed sampler
DDP_TEXT = ("DistributedDataParallel", "init_process_group", "horovod")
DEPTH = 4
# words of a loop header that counts the steps or batches inside one epoch
STEP_WORDS = ("per_epoch", "step", "batch", "iter")


class _Point:
    """A position with no node of its own: the end of a method, where a set_epoch call belongs."""

    def __init__(self, line: int, col: int) -> None:
        self.lineno = self.end_lineno = line
        self.col_offset = self.end_col_offset = col


class DistributedSamplerWithoutSetEpoch(Rule):
    """What it does: flags a shuffling DistributedSampler whose loader is iterated epoch after epoch
    while nothing calls .set_epoch(...): at the top of the epoch loop that re-iterates the loader
    (also when the loader is handed to a training function, a trainer class or a dict of loaders),
    at the end of a per-epoch method, or where the sampler is built when no loop is visible. A file
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
    requires_text = ("DistributedSampler", *DDP_TEXT)  # skip modules that cannot contain the pattern
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
        if _sets_epoch(ctx) or _framework(ctx):
            return
        samplers = [c for c in ctx.by_type.get(ast.Call, ()) if _shuffling_sampler(c, ctx)]
        samplers.sort(key=lambda c: (c.lineno, c.col_offset))
        reported, placed = set(), set()
        for loader, sampler in _loaders(ctx, samplers):
            where = _where(loader, ctx)
            if where is None:
                continue
            placed.add(sampler)
            if (where.lineno, where.col_offset) not in reported:
                reported.add((where.lineno, where.col_offset))
                yield Hit(where, self.message + f" (the sampler of line {sampler.lineno})")
        for sampler in samplers:  # no iteration of its loader seen here: at its construction
            if sampler not in placed and _has_epoch_loop(ctx):
                yield Hit(sampler)
        if any(t in ctx.source for t in DDP_TEXT):  # DDP training over a loader built elsewhere
            for loop in _epoch_loops(ctx):
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

    return "set_epoch" in ctx.source and ctx.memo(("mld054", "sets_epoch"), look)


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
    if shuffle is not None and not (isinstance(shuffle, ast.Constant) and shuffle.value is True):
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
        sampler = next((s for s in samplers if any(h is s for h in held)), None)
        if sampler is not None:
            found.append((call, sampler))
    return sorted(found, key=lambda f: (f[0].lineno, f[0].col_offset))


def _held(given: ast.expr, ctx: ModuleContext) -> list[ast.expr]:
    """What `sampler=` may be: the expression, what a name holds, the entry of a dict (`samplers["train"]`)."""
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


def _where(loader: ast.Call, ctx: ModuleContext):
    """Where set_epoch belongs for this loader: the epoch loop around its first iteration, the end of the
    per-epoch method that iterates it, or that first iteration itself (`iter(loader)` before the loop)."""
    sites = sorted(_sites(_handle_of(loader, ctx), ctx, DEPTH), key=lambda n: (n.lineno, n.col_offset))
    for site in sites[:1]:
        return _epoch_place(site, ctx, DEPTH) or (site if _has_epoch_loop(ctx) else None)
    return None


def _handle_of(value: ast.AST, ctx: ModuleContext) -> list[tuple]:
    """How the code reaches a value: ('name', scope, id, key) or ('attr', class, attr, key) for
    `x = value`, `self.x = value`, `x = {"train": value}` (key 'train')."""
    parent, key = ctx.parent(value), None
    if isinstance(parent, ast.Dict):
        index = next((i for i, v in enumerate(parent.values) if v is value), None)
        k = parent.keys[index] if index is not None else None
        if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
            return []
        key, value, parent = k.value, parent, ctx.parent(parent)
    if not isinstance(parent, ast.Assign | ast.AnnAssign) or parent.value is not value:
        return []
    handles = []
    for target in parent.targets if isinstance(parent, ast.Assign) else [parent.target]:
        if isinstance(target, ast.Name):
            handles.append(("name", ctx.scope_of(parent), target.id, key))
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            handles.append(("attr", ctx.enclosing_class(parent), target.attr, key))
    return handles


def _uses(handle: tuple, ctx: ModuleContext) -> list[tuple[ast.expr, str | None]]:
    """(use, key still to apply): `loaders["train"]` applies the key; a bare `loaders` hands the dict on."""
    kind, owner, name, key = handle
    if kind == "name":
        found = [n for n in ctx.in_scope(owner, (ast.Name,)) if n.id == name and isinstance(n.ctx, ast.Load)]
    else:
        found = [n for n in ctx.by_type.get(ast.Attribute, ()) if n.attr == name and isinstance(n.value, ast.Name)
                 and n.value.id == "self" and isinstance(n.ctx, ast.Load) and ctx.enclosing_class(n) is owner]
    if key is None:
        return [(n, None) for n in found]
    keyed = []
    for use in found:
        parent = ctx.parent(use)
        if isinstance(parent, ast.Subscript) and parent.value is use:
            if isinstance(parent.slice, ast.Constant) and parent.slice.value == key:
                keyed.append((parent, None))
        else:
            keyed.append((use, key))
    return keyed


def _sites(handles: list[tuple], ctx: ModuleContext, depth: int) -> list[ast.AST]:
    """The nodes that iterate the loader: `for b in loader`, `enumerate(loader)`, `iter(loader)`, a call of
    code not visible here that is handed it; followed into this file's functions, methods and classes."""
    sites: list[ast.AST] = []
    if depth <= 0:
        return sites
    for handle in handles:
        for use, key in _uses(handle, ctx):
            parent = ctx.parent(use)
            if isinstance(parent, ast.For | ast.AsyncFor) and parent.iter is use and key is None:
                sites.append(parent)
            elif isinstance(parent, ast.keyword):
                sites.extend(_handed(ctx.parent(parent), parent.arg, key, ctx, depth))
            elif isinstance(parent, ast.Call) and use in parent.args:
                sites.extend(_handed(parent, parent.args.index(use), key, ctx, depth))
            elif isinstance(parent, ast.Dict) and key is None:
                sites.extend(_sites(_handle_of(use, ctx), ctx, depth - 1))
    return sites


def _handed(call: ast.Call, slot: int | str, key: str | None, ctx: ModuleContext, depth: int) -> list[ast.AST]:
    """A call given the loader: an iterator over it, a function or class of this file (followed), or code
    not visible here (the call itself: it runs the loader)."""
    callee = call.func
    simple = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else ""
    if simple in ITERATORS:
        return [call] if key is None else []
    target = _local_callee(callee, ctx)
    if target is None:
        return [] if key is not None or simple in {"len", "print", "isinstance", "getattr", "hasattr"} else [call]
    func, cls = target
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    if isinstance(slot, int):
        slot += 1 if params[:1] == ["self"] else 0  # self.method(loader), Class(loader): self is not passed
        if slot >= len(params):
            return []
        slot = params[slot]
    if slot not in params + [a.arg for a in func.args.kwonlyargs]:
        return []
    handles = [("name", func, slot, None)]
    if cls is not None:  # a class given the loader: what its __init__ keeps in self.<attr>
        for node in ctx.in_scope(func, (ast.Assign,)):
            if isinstance(node.value, ast.Name) and node.value.id == slot:
                handles += [("attr", cls, t.attr, None) for t in node.targets if isinstance(t, ast.Attribute)
                            and isinstance(t.value, ast.Name) and t.value.id == "self"]
    return _sites([(kind, owner, name, key) for kind, owner, name, _ in handles], ctx, depth - 1)


def _local_callee(callee: ast.AST, ctx: ModuleContext) -> tuple[ast.AST, ast.ClassDef | None] | None:
    """(function, class it builds) for a call of this file's function, method of the same class, or class."""
    if isinstance(callee, ast.Name):
        if callee.id in ctx.functions:
            return ctx.functions[callee.id], None
        cls = ctx.classes.get(callee.id)
        init = _method(cls, "__init__") if cls is not None else None
        return (init, cls) if init is not None else None
    if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self":
        cls = ctx.enclosing_class(callee)
        method = _method(cls, callee.attr) if cls is not None else None
        return (method, None) if method is not None else None
    return None


def _method(cls: ast.ClassDef, name: str):
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name), None)


def _epoch_place(site: ast.AST, ctx: ModuleContext, depth: int):
    """The epoch loop around `site` (in its function or around a call of that function), else the end of the
    per-epoch method (`_train_epoch`) `site` is in."""
    loop = next((a for a in [site, *ctx.ancestors(site)] if isinstance(a, ast.For | ast.AsyncFor | ast.While)
                 and a is not site and _epoch_header(a)), None)
    func = ctx.enclosing(site, (ast.FunctionDef, ast.AsyncFunctionDef))
    if loop is not None and (func is None or func in ctx.ancestors(loop)):
        return loop
    if func is None or depth <= 0:
        return None
    for call in _calls_of(func, ctx):
        found = _epoch_place(call, ctx, depth - 1)
        if isinstance(found, ast.For | ast.AsyncFor | ast.While):
            return found
    if "epoch" in func.name.lower():
        last = func.body[-1]
        return _Point(last.end_lineno or last.lineno, last.col_offset)
    return None


def _calls_of(func: ast.AST, ctx: ModuleContext) -> list[ast.Call]:
    method = isinstance(ctx.parent(func), ast.ClassDef)
    found = []
    for call in ctx.by_type.get(ast.Call, ()):
        callee = call.func
        if method and isinstance(callee, ast.Attribute) and callee.attr == func.name \
                and isinstance(callee.value, ast.Name) and callee.value.id == "self":
            found.append(call)
        elif not method and isinstance(callee, ast.Name) and callee.id == func.name:
            found.append(call)
    return found


def _epoch_header(loop: ast.AST) -> bool:
    """`for epoch in ...`, `for _ in range(num_epochs)`, `while epoch < max_epochs`; not a loop over the
    steps of one epoch (`for steps_per_epoch, batch in ...`, `while step < steps_per_epoch`)."""
    head = [loop.test] if isinstance(loop, ast.While) else [loop.target, loop.iter]
    names = [(n.id if isinstance(n, ast.Name) else n.attr).lower()
             for h in head for n in ast.walk(h) if isinstance(n, ast.Name | ast.Attribute)]
    if any(word in name for name in names for word in STEP_WORDS):
        return False
    return any("epoch" in name for name in names)


def _epoch_loops(ctx: ModuleContext) -> list[ast.AST]:
    loops = [n for t in (ast.For, ast.AsyncFor, ast.While) for n in ctx.by_type.get(t, ()) if _epoch_header(n)]
    return sorted(loops, key=lambda n: (n.lineno, n.col_offset))


def _has_epoch_loop(ctx: ModuleContext) -> bool:
    return ctx.memo(("mld054", "epoch-loop"), lambda: bool(_epoch_loops(ctx)))


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
