"""Where a DataLoader goes and where set_epoch belongs for it (MLD054): the places that iterate the loader,
followed through names, `self.<attr>`, dicts of loaders, this file's functions, methods and classes, and
what a wrapper of another library returns for it (`_, _, dl = backend.distribute(training_data=loader)`), and
the epoch loop around them (also a `while` loop right around a pass, an endless batch generator, or a counted
`for _ in range(n)` around one), or the end of a per-epoch method."""

import ast
import os

from ..context import ModuleContext
from .graph import callee
from .kinds import method_of
from .loader_facts import loader_facts, scoped
from .loader_origin import handed_loader_facts, sampler_builders
from .loops import LOOPS

# calls that iterate the loader they are given (or wrap it for a loop)
ITERATORS = frozenset({"enumerate", "iter", "zip", "tqdm", "trange", "cycle"})
# calls handed a loader that do not run it
NOT_RUNNING = frozenset({"len", "print", "isinstance", "getattr", "hasattr"})
# words of a loop header that counts the steps or batches inside one epoch
STEP_WORDS = ("per_epoch", "step", "batch", "iter")
DEPTH = 4
EPOCH_SETTER = "sets_epoch:"  # project facts: a function of this file that calls set_epoch


class Point:
    """A position with no node of its own: the end of a method, where a set_epoch call belongs."""

    def __init__(self, line: int, col: int) -> None:
        self.lineno = self.end_lineno = line
        self.col_offset = self.end_col_offset = col


def set_epoch_place(loader: ast.Call, ctx: ModuleContext):
    """Where set_epoch belongs for this loader: the epoch loop around its first iteration (the statement of the
    loop's body that starts the pass over the loader, when others come before it), the end of the per-epoch
    method that iterates it, or that first iteration itself (`iter(loader)` before the loop)."""
    sites = sorted(_sites(_handle_of(loader, ctx), ctx, DEPTH) + _passed_inline(loader, ctx),
                   key=lambda n: (n.lineno, n.col_offset))
    for site in sites[:1]:
        place = epoch_place(site, ctx, DEPTH)
        if isinstance(place, ast.For | ast.AsyncFor | ast.While) and place in ctx.ancestors(site):
            # the epoch's pass over the loader starts at this statement (`batches = iter(loader)`, the batch
            # loop) after others (logging, model.train()): set_epoch goes right before it
            start = next(s for s in [site, *ctx.ancestors(site)] if s in place.body)
            return place if start is place.body[0] else start
        return place or (site if has_epoch_loop(ctx) else None)
    return None


def _passed_inline(loader: ast.Call, ctx: ModuleContext) -> list[ast.AST]:
    """`run(DataLoader(...))`, `for b in DataLoader(...)`: a loader built right where it is used."""
    parent = ctx.parent(loader)
    if isinstance(parent, ast.For | ast.AsyncFor) and parent.iter is loader:
        return [parent]
    if isinstance(parent, ast.keyword):
        return _handed(ctx.parent(parent), parent.arg, None, ctx, DEPTH)
    if isinstance(parent, ast.Call) and loader in parent.args:
        return _handed(parent, parent.args.index(loader), None, ctx, DEPTH)
    if isinstance(parent, ast.Return) or isinstance(parent, ast.Tuple) and isinstance(ctx.parent(parent), ast.Return):
        return _returned_to_callers(loader, parent, ctx, DEPTH)  # `return DataLoader(...)` from a builder
    return []


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
            while isinstance(parent, ast.IfExp) and use is not parent.test:  # `ds if deepspeed else loader`
                use, parent = parent, ctx.parent(parent)
            if isinstance(parent, ast.For | ast.AsyncFor) and parent.iter is use and key is None:
                sites.append(parent)
            elif isinstance(parent, ast.keyword):
                sites.extend(_handed(ctx.parent(parent), parent.arg, key, ctx, depth))
            elif isinstance(parent, ast.Call) and use in parent.args:
                sites.extend(_handed(parent, parent.args.index(use), key, ctx, depth))
            elif isinstance(parent, ast.Dict) and key is None:
                sites.extend(_sites(_handle_of(use, ctx), ctx, depth - 1))
            elif key is None and (isinstance(parent, ast.Return) or isinstance(parent, ast.Tuple)
                                  and isinstance(ctx.parent(parent), ast.Return)):
                sites.extend(_returned_to_callers(use, parent, ctx, depth))
    return sites


def _handed(call: ast.Call, slot: int | str, key: str | None, ctx: ModuleContext, depth: int) -> list[ast.AST]:
    """A call given the loader: an iterator over it, a function or class of this file (followed), or code
    not visible here (the call itself: it runs the loader)."""
    simple = callee(call.func)
    if simple in ITERATORS:
        return [call] if key is None else []
    target = _local_callee(call.func, ctx)
    if target is None:
        if key is not None or simple in NOT_RUNNING:
            return []
        # code not visible here: it runs the loader, or wraps it (`a, b, dl = backend.distribute(loader)`) for a
        # loop here over what it returns
        return _iterations(_result_handles(call, ctx), ctx, depth - 1) or [call]
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


def _returned_to_callers(use: ast.AST, parent: ast.AST, ctx: ModuleContext, depth: int) -> list[ast.AST]:
    """`return loader` (or `return train_loader, val_loader`) from a builder of this file: where its callers
    keep the result (the same element of a tuple they unpack)."""
    func = ctx.enclosing(use, (ast.FunctionDef, ast.AsyncFunctionDef))
    index = next(i for i, e in enumerate(parent.elts) if e is use) if isinstance(parent, ast.Tuple) else None
    handles = []
    for call in _calls_of(func, ctx) if func is not None else ():
        assign = ctx.parent(call)
        if not isinstance(assign, ast.Assign) or assign.value is not call:
            continue
        for target in assign.targets:
            if index is not None and isinstance(target, ast.Tuple) and index < len(target.elts):
                target = target.elts[index]
            elif index is not None:
                continue
            if isinstance(target, ast.Name):
                handles.append(("name", ctx.scope_of(assign), target.id, None))
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                handles.append(("attr", ctx.enclosing_class(assign), target.attr, None))
    return _sites(handles, ctx, depth - 1)


def _result_handles(call: ast.Call, ctx: ModuleContext) -> list[tuple]:
    """Handles of the names a call's result is assigned to, tuple elements included."""
    parent = ctx.parent(call)
    if not isinstance(parent, ast.Assign) or parent.value is not call:
        return []
    names = [n for t in parent.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return [("name", ctx.scope_of(parent), n.id, None) for n in names]


def _iterations(handles: list[tuple], ctx: ModuleContext, depth: int) -> list[ast.AST]:
    """The loops over (and iterator calls on) what the handles hold; calls merely given them do not count."""
    return [s for s in _sites(handles, ctx, depth) if isinstance(s, ast.For | ast.AsyncFor)
            or isinstance(s, ast.Call) and callee(s.func) in ITERATORS]


def _local_callee(func: ast.AST, ctx: ModuleContext) -> tuple[ast.AST, ast.ClassDef | None] | None:
    """(function, class it builds) for a call of this file's function, method of the same class, or class."""
    if isinstance(func, ast.Name):
        if func.id in ctx.functions:
            return ctx.functions[func.id], None
        cls = ctx.classes.get(func.id)
        init = method_of(cls, "__init__") if cls is not None else None
        return (init, cls) if init is not None else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(func)
        method = method_of(cls, func.attr) if cls is not None else None
        return (method, None) if method is not None else None
    return None


def epoch_place(site: ast.AST, ctx: ModuleContext, depth: int):
    """The epoch loop around `site` (in its function or around a call of that function), else the end of the
    per-epoch method (`_train_epoch`) `site` is in."""
    loop = next((a for a in [site, *ctx.ancestors(site)] if isinstance(a, ast.For | ast.AsyncFor | ast.While)
                 and a is not site and (epoch_header(a) or depth == DEPTH and rereads(a, site))), None)
    func = ctx.enclosing(site, (ast.FunctionDef, ast.AsyncFunctionDef))
    if loop is not None and (func is None or func in ctx.ancestors(loop)):
        return loop
    if func is None or depth <= 0:
        return None
    for call in _calls_of(func, ctx):
        found = epoch_place(call, ctx, depth - 1)
        if isinstance(found, ast.For | ast.AsyncFor | ast.While):
            return found
    if "epoch" in func.name.lower():
        last = func.body[-1]
        return Point(last.end_lineno or last.lineno, last.col_offset)
    return None


def _calls_of(func: ast.AST, ctx: ModuleContext) -> list[ast.Call]:
    method = isinstance(ctx.parent(func), ast.ClassDef)
    found = []
    for call in ctx.by_type.get(ast.Call, ()):
        called = call.func
        if method and isinstance(called, ast.Attribute) and called.attr == func.name \
                and isinstance(called.value, ast.Name) and called.value.id == "self" or not method and isinstance(called, ast.Name) and called.id == func.name:
            found.append(call)
    return found


def epoch_header(loop: ast.AST) -> bool:
    """`for epoch in ...`, `for _ in range(num_epochs)`, `while epoch < max_epochs`; not a loop over the
    steps of one epoch (`for steps_per_epoch, batch in ...`, `while step < steps_per_epoch`)."""
    head = [loop.test] if isinstance(loop, ast.While) else [loop.target, loop.iter]
    names = [(n.id if isinstance(n, ast.Name) else n.attr).lower()
             for h in head for n in ast.walk(h) if isinstance(n, ast.Name | ast.Attribute)]
    if any(word in name for name in names for word in STEP_WORDS):
        return False
    return any("epoch" in name for name in names)


def rereads(loop: ast.AST, site: ast.AST) -> bool:
    """A `while` loop right around a pass over a loader (`while True:` of an endless batch generator, `while
    step < max_steps:`), or a counted `for _ in range(n)` loop around one: each pass is an epoch. (A `while`
    that calls a per-epoch method leaves the place to that method's end.)"""
    if isinstance(loop, ast.While):
        return isinstance(site, ast.For | ast.AsyncFor)
    if not isinstance(site, ast.For | ast.AsyncFor) and not any(
            isinstance(n, ast.For | ast.AsyncFor) and n.iter is site for n in ast.walk(loop)):
        return False  # a pass over the loader: the loop itself, or the iterable of a loop (`enumerate(dl)`)
    # `for v in range(n):` (or trange/tqdm over one) around the pass, whatever its counter is called; not a loop
    # over phases or loaders (`for name, dl in loaders.items()`), whose each pass runs another loader
    source = loop.iter
    while isinstance(source, ast.Call) and source.args and callee(source.func) in WRAPPERS:
        source = source.args[0]
    return isinstance(source, ast.Call) and callee(source.func) in {"range", "trange"}


WRAPPERS = {"tqdm", "trange", "enumerate", "master_bar", "progress_bar"}


def epoch_loops(ctx: ModuleContext) -> list[ast.AST]:
    loops = [n for t in (ast.For, ast.AsyncFor, ast.While) for n in ctx.by_type.get(t, ()) if epoch_header(n)]
    return sorted(loops, key=lambda n: (n.lineno, n.col_offset))


def counted_loops(ctx: ModuleContext) -> list[ast.AST]:
    """The epoch loops, and the outermost `for _ in range(n)` / `trange(n)` loops of a function (or of the module)
    whatever their counter is called (`for v6 in range(0, v13): train(train_loader, ...)`), but none whose range
    reads a `len(...)` (`range(len(loader))`: the batches of a loader); and the outermost `while` loops that run a
    `for` loop each pass (`while step < total_steps: for batch in loader:`), each pass of which is an epoch."""
    def collect() -> list[ast.AST]:
        named = epoch_loops(ctx)
        counted = [loop for loop in ctx.by_type.get(ast.While, ())
                   if loop not in named and not isinstance(ctx.enclosing(loop, LOOPS + _BOUNDARIES), LOOPS)
                   and any(isinstance(n, ast.For | ast.AsyncFor) and ctx.enclosing(n, LOOPS + _BOUNDARIES) is loop
                           for n in ast.walk(loop))]
        for loop in ctx.by_type.get(ast.For, ()):
            if loop in named or not (isinstance(loop.iter, ast.Call) and callee(loop.iter.func) in {"range", "trange"}):
                continue
            if any(isinstance(n, ast.Call) and callee(n.func) == "len" for n in ast.walk(loop.iter)):
                continue
            if isinstance(ctx.enclosing(loop, LOOPS + _BOUNDARIES), LOOPS):
                continue  # inside another loop of its function
            counted.append(loop)
        return sorted([*named, *counted], key=lambda n: (n.lineno, n.col_offset))

    return ctx.memo(("mld054", "counted-loops"), collect)


_BOUNDARIES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def has_epoch_loop(ctx: ModuleContext) -> bool:
    return ctx.memo(("mld054", "epoch-loop"), lambda: bool(epoch_loops(ctx)))


SHARDED = "distributed-sampler"  # project fact: a file of the run builds a DistributedSampler that may shuffle


def epoch_setters(ctx: ModuleContext) -> dict[str, str]:
    """`sets_epoch:<name>` for each function or method of this file that calls `.set_epoch(...)`: what the
    project index tells a file whose epoch loop calls it (set_epoch through a helper is set_epoch); and
    `distributed-sampler` when this file builds a DistributedSampler whose shuffle is not turned off."""
    found = loader_facts(ctx)  # set_epoch anywhere, NumPy augmentation draws
    found.update(handed_loader_facts(ctx))  # what feeds the train loaders this file hands another file's function
    if ctx.has_text("DistributedSampler"):
        samplers = []
        for call in ctx.by_type.get(ast.Call, ()):
            name = ctx.call_name(call) or ""
            shuffle = next((k.value for k in call.keywords if k.arg == "shuffle"), None)
            if name.endswith("DistributedSampler") and not (isinstance(shuffle, ast.Constant) and not shuffle.value):
                samplers.append(call)
        if samplers:
            found.update(scoped(SHARDED, f"{os.path.basename(ctx.path)}:{samplers[0].lineno}", ctx))
            found.update(sampler_builders(ctx, samplers))  # the functions and classes that build them
    if not ctx.has_text("set_epoch"):
        return found
    for call in ctx.by_type.get(ast.Call, ()):
        if isinstance(call.func, ast.Attribute) and call.func.attr == "set_epoch":
            func = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
            if func is not None:
                found[EPOCH_SETTER + func.name] = "set_epoch"
    return found

