"""Whether a DistributedSampler feeds the train loader an epoch loop runs (MLD054), read from where that loader
comes from rather than from any DistributedSampler of the run: the loader's own `sampler=` (`batch_sampler=`)
argument, or the data factory that builds it (`create_dataloader(cfg)` of another file, which the project index
says builds one). The loader is followed through names, tuples a call's result is unpacked into, `self.<attr>`,
the parameters of this file's functions (to the arguments of their calls here, or to what another file's call
hands them: `train_validate_test(model, optimizer, train_loader)`, told through the project index), what this
file's functions return, and iterator wrappers (`zip(loader, temporal)`, `enumerate(loader)`)."""

import ast
import os

from ..context import ModuleContext
from .data import name_of
from .graph import callee
from .loader_facts import scoped, told_in_scope
from .optim_steps import local_callee

DISTRIBUTED = "distributed"  # a DistributedSampler feeds it, or a sampler this file cannot see is handed to it
PLAIN = "plain"  # the loader's own sampler (`NeighborLoader(data, shuffle=True)`) or a factory building none
UNKNOWN = "unknown"  # handed in from outside this file (`self.data.train_dl`): nothing ties a sampler to it

BUILDS = "distributed-sampler-in:"  # project facts: a function or class that builds a shuffling DistributedSampler
SAMPLER_ARGS = ("sampler", "batch_sampler")
# calls that wrap a loader for a loop over it: the loader is their first argument (every argument of zip)
WRAPPING = frozenset({"enumerate", "iter", "next", "zip", "tqdm", "cycle", "progress_bar", "chain"})
DEPTH = 6


def sampler_builders(ctx: ModuleContext, samplers: list[ast.Call]) -> dict[str, str]:
    """`distributed-sampler-in:<name>` for each function and class of this file that builds one of `samplers`
    (shuffling DistributedSamplers), and each that calls one of those by name (`create_dataloader` building a
    `CustomDatasetDataLoader` whose __init__ builds the sampler); told under the file's scopes."""
    if not samplers:
        return {}
    where = f"{os.path.basename(ctx.path)}:{samplers[0].lineno}"
    builders: set[str] = set()
    for call in samplers:
        builders |= _owners(call, ctx)
    for _ in range(2):  # one or two hops through this file's own functions and classes
        more = {name for call in ctx.by_type.get(ast.Call, ()) if callee(call.func) in builders
                for name in _owners(call, ctx)} - builders
        if not more:
            break
        builders |= more
    found = {}
    for name in sorted(builders):
        found.update(scoped(BUILDS + name, where, ctx))
    return found


def _owners(node: ast.AST, ctx: ModuleContext) -> set[str]:
    """The function and the class (of a method) around `node`."""
    func = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    cls = ctx.enclosing_class(node) if func is not None else None
    return {n.name for n in (func, cls) if n is not None}


def sampler_feeding(source: ast.expr, ctx: ModuleContext) -> str:
    """DISTRIBUTED when some origin of the loader `source` is fed by a DistributedSampler (or handed a sampler
    this file does not show); UNKNOWN when some origin cannot be followed and none is DISTRIBUTED; else PLAIN."""
    while isinstance(source, ast.Call) and source.args and callee(source.func) not in WRAPPING \
            and not _names_a_loader(callee(source.func)):
        source = source.args[0]  # `self.train_step(next(self.dataloader_train))`: the loader is the argument
    verdicts = {_verdict(o, ctx, DEPTH) for o in _origins(source, ctx, DEPTH, set())}
    if DISTRIBUTED in verdicts:
        return DISTRIBUTED
    return UNKNOWN if UNKNOWN in verdicts or not verdicts else PLAIN


def _names_a_loader(name: str) -> bool:
    """`get_dataloader`, `build_train_dl`: a call that gives a loader (not one that is handed it)."""
    words = name.lower()
    return "loader" in words or bool(set(words.split("_")) & {"dl", "dls"})


def _origins(expr: ast.expr, ctx: ModuleContext, depth: int, seen: set) -> list[ast.expr]:
    """The expressions that build the loader `expr` holds: calls, or what cannot be followed further."""
    if depth <= 0 or id(expr) in seen:
        return [expr]
    seen.add(id(expr))
    if isinstance(expr, ast.Call) and callee(expr.func) in WRAPPING and expr.args:
        args = expr.args if callee(expr.func) in {"zip", "chain"} else expr.args[:1]
        return [o for a in args for o in _origins(a, ctx, depth - 1, seen)]
    if isinstance(expr, ast.IfExp):
        return [o for b in (expr.body, expr.orelse) for o in _origins(b, ctx, depth - 1, seen)]
    if isinstance(expr, ast.Subscript):  # `loaders["train"]`: the table's values
        return _origins(expr.value, ctx, depth - 1, seen)
    if isinstance(expr, ast.Dict):
        return [o for v in expr.values if v is not None for o in _origins(v, ctx, depth - 1, seen)]
    if isinstance(expr, ast.Call):
        func = local_callee(expr, ctx)
        if func is None or func.name == "__init__":
            return [expr]
        returned = [r.value for r in ast.walk(func) if isinstance(r, ast.Return) and r.value is not None]
        return [o for r in returned for o in _origins(r, ctx, depth - 1, seen)] or [expr]
    if not isinstance(expr, ast.Name | ast.Attribute):
        return [expr]
    values = [v for v in ctx.values_of(expr) if not (isinstance(v, ast.Constant) and v.value is None)]
    values += _unpacked(expr, ctx)
    if isinstance(expr, ast.Name):
        values += _arguments(expr, ctx)
    if not values:
        return [expr]
    return [o for v in values for o in _origins(v, ctx, depth - 1, seen)]


def _unpacked(expr: ast.Name | ast.Attribute, ctx: ModuleContext) -> list[ast.expr]:
    """`train_loader, val_loader = create_dataloader(cfg)`, `self.dl_tr, self.dl_val = self.get_dataloaders()`:
    the call (its element, when it is this file's function returning a tuple)."""
    key = ast.dump(expr)
    cls = ctx.enclosing_class(expr) if isinstance(expr, ast.Attribute) else None
    scope = ctx.scope_of(expr) if isinstance(expr, ast.Name) else None
    found = []
    for assign, index in _tuple_targets(ctx).get(key, ()):
        if isinstance(expr, ast.Name) and ctx.scope_of(assign) is not ctx.closure_scope(scope, expr.id):
            continue
        if isinstance(expr, ast.Attribute) and (not isinstance(expr.value, ast.Name) or expr.value.id != "self"
                                                or ctx.enclosing_class(assign) is not cls):
            continue
        value = assign.value
        func = local_callee(value, ctx) if isinstance(value, ast.Call) else None
        if func is None:
            found.append(value)
            continue
        for ret in ast.walk(func):
            if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple) and index < len(ret.value.elts):
                found.append(ret.value.elts[index])
    return found


def _tuple_targets(ctx: ModuleContext) -> dict[str, list[tuple[ast.Assign, int]]]:
    """ast.dump of each element of a tuple a call's result is unpacked into -> (assignment, index)."""
    def index() -> dict:
        found: dict = {}
        for assign in ctx.by_type.get(ast.Assign, ()):
            if not isinstance(assign.value, ast.Call):
                continue
            for target in assign.targets:
                if isinstance(target, ast.Tuple | ast.List):
                    for i, element in enumerate(target.elts):
                        found.setdefault(ast.dump(_loaded(element)), []).append((assign, i))
        return found

    return ctx.memo(("loader_origin", "tuple-targets"), index)


def _loaded(expr: ast.expr) -> ast.expr:
    """The same expression read (the dump of a stored target differs from a read only in its ctx)."""
    if isinstance(expr, ast.Name):
        return ast.Name(id=expr.id, ctx=ast.Load())
    if isinstance(expr, ast.Attribute):
        return ast.Attribute(value=_loaded(expr.value), attr=expr.attr, ctx=ast.Load())
    return expr


def _arguments(name: ast.Name, ctx: ModuleContext) -> list[ast.expr]:
    """A parameter of this file's function: the arguments its calls in this file pass for it."""
    func = ctx.enclosing(name, (ast.FunctionDef, ast.AsyncFunctionDef))
    if func is None:
        return []
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    if name.id not in params + [a.arg for a in func.args.kwonlyargs]:
        return []
    method = params[:1] == ["self"]
    found = []
    for call in _calls_of(func, ctx):
        given = next((k.value for k in call.keywords if k.arg == name.id), None)
        if given is None and name.id in params:
            slot = params.index(name.id) - (1 if method and isinstance(call.func, ast.Attribute) else 0)
            given = call.args[slot] if 0 <= slot < len(call.args) and not any(
                isinstance(a, ast.Starred) for a in call.args[:slot + 1]) else None
        if given is not None:
            found.append(given)
    return found


def _calls_of(func: ast.AST, ctx: ModuleContext) -> list[ast.Call]:
    def index() -> dict:
        found: dict = {}
        for call in ctx.by_type.get(ast.Call, ()):
            name = callee(call.func)
            if name and name in ctx.functions or isinstance(call.func, ast.Attribute):
                target = local_callee(call, ctx)
                if target is not None:
                    found.setdefault(target, []).append(call)
        return found

    return ctx.memo(("loader_origin", "calls"), index).get(func, [])


def _verdict(origin: ast.expr, ctx: ModuleContext, depth: int) -> str:
    """What feeds one origin of the loader: its feeders here, or, for a parameter of a function no call of this
    file reaches, what another file's call hands it (the project index)."""
    feeders = _feeders(origin, ctx, depth)
    if feeders is None and isinstance(origin, ast.Name):
        feeders = _handed_by_callers(origin, ctx)
    if feeders is None:
        return UNKNOWN
    if any(f == HERE or f != OUTSIDE and told_in_scope(ctx, BUILDS + f) for f in feeders):
        return DISTRIBUTED
    return UNKNOWN if OUTSIDE in feeders else PLAIN


HERE = "*"  # a feeder: a DistributedSampler (or a sampler this file does not build) handed to the loader here
OUTSIDE = "?"  # a feeder: an object from outside this file


def _feeders(origin: ast.expr, ctx: ModuleContext, depth: int) -> set[str] | None:
    """The names of the functions and classes that build one origin of the loader (`create_dataloader`, the
    `DataBunch` whose `.train_dl` it is), HERE for a sampler handed to it here; None when it comes from outside
    this file (a parameter, `self.data.train_dl` of a data object handed in). Read from this module alone."""
    if isinstance(origin, ast.Attribute) and not (isinstance(origin.value, ast.Name) and origin.value.id == "self"):
        return _receiver_feeders(origin.value, ctx, depth)  # `data.train_loader` of `data = DataBunch(cfg)`
    if not isinstance(origin, ast.Call):
        return None
    given = next((k.value for k in origin.keywords if k.arg in SAMPLER_ARGS
                  and not (isinstance(k.value, ast.Constant) and k.value.value is None)), None)
    if given is not None:  # the loader's own sampler: a DistributedSampler, or a factory of one
        samplers = _origins(given, ctx, depth - 1, set())
        if any(not isinstance(s, ast.Call) or "DistributedSampler" in (ctx.call_name(s) or callee(s.func))
               for s in samplers):
            return {HERE}  # a sampler this file does not build may be a DistributedSampler
        return {_built_by(s, ctx) for s in samplers}
    func = origin.func
    if not isinstance(func, ast.Attribute) or ctx.qualname(func) is not None:
        return {_built_by(origin, ctx)}  # a library's loader makes its own sampler; a factory is asked
    receiver = _receiver_feeders(func.value, ctx, depth)  # a method of an object: its class (or factory) too
    # an object handed in (`self.experiment.get_loaders(stage)`): its method is still asked by name (catalyst's
    # ConfigExperiment.get_loaders builds the DistributedSampler in another file)
    return ({OUTSIDE} if receiver is None else receiver) | {_built_by(origin, ctx)}


def _built_by(call: ast.Call, ctx: ModuleContext) -> str:
    """The name a factory's facts are told under: `build` of `from data import make as build` is `make`."""
    return (ctx.qualname(call.func) or callee(call.func)).rsplit(".", 1)[-1]


def _receiver_feeders(receiver: ast.expr, ctx: ModuleContext, depth: int) -> set[str] | None:
    """The feeders of the object whose attribute or method gives the loader."""
    if depth <= 0:
        return None
    found: set[str] = set()
    for built in _origins(receiver, ctx, depth - 1, set()):
        feeders = _feeders(built, ctx, depth - 1) if isinstance(built, ast.Call) else None
        found |= {OUTSIDE} if feeders is None else feeders
    return None if found <= {OUTSIDE} else found


HANDED = "train-loader-handed:"  # project facts: <function or class>:<slot> -> the feeders of a loader handed to it


def handed_loader_facts(ctx: ModuleContext) -> dict[str, str]:
    """`train-loader-handed:<callee>:<slot>` for each call of a function or class of another file given a train
    loader (`train_validate_test(model, optimizer, train_loader, ...)`, slot 2; a keyword's slot is `=name`): the
    feeders of that loader here (`dataset_loading_and_splitting`, a factory the index may say builds a
    DistributedSampler), which the callee's file reads for its parameter."""
    if not ctx.has_text("train"):
        return {}
    found = {}
    for call in ctx.by_type.get(ast.Call, ()):
        owner = _handed_to(call, ctx)
        if owner is None:
            continue
        given = [(str(i), a) for i, a in enumerate(call.args)]
        given += [(f"={k.arg}", k.value) for k in call.keywords if k.arg]
        for slot, arg in given:
            if not isinstance(arg, ast.Name | ast.Attribute) or not train_loader_named(arg):
                continue
            feeders: set[str] = set()
            for origin in _origins(arg, ctx, DEPTH, set()):
                more = _feeders(origin, ctx, DEPTH)
                feeders |= {OUTSIDE} if more is None else more
            if feeders - {OUTSIDE}:
                found.update(scoped(f"{HANDED}{owner}:{slot}", ",".join(sorted(feeders)), ctx))
    return found


def _handed_to(call: ast.Call, ctx: ModuleContext) -> str | None:
    """What another file's code receives this call's arguments as: a function or class of another file
    (`train_validate_test`), or a method of an object built from one (`runner.run` of `runner =
    EpochBasedRunner(...)`, mmcv-style: `EpochBasedRunner.run`)."""
    func = call.func
    if isinstance(func, ast.Name):
        return None if func.id in ctx.functions or func.id in ctx.classes else _built_by(call, ctx)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        built = (ctx.constructed(func.value) or "").rsplit(".", 1)[-1]
        if built[:1].isupper() and built not in ctx.classes:
            return f"{built}.{func.attr}"
    return None


def _handed_by_callers(name: ast.Name, ctx: ModuleContext) -> set[str] | None:
    """The feeders another file's call tells for this parameter (of a module function, a class's __init__ or a
    method)."""
    func = ctx.enclosing(name, (ast.FunctionDef, ast.AsyncFunctionDef))
    if func is None:
        return None
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    parent = ctx.parent(func)
    if isinstance(parent, ast.ClassDef) and func.name == "__init__":
        owner, params = parent.name, params[1:]  # `Trainer(model, train_loader)`: self is not passed
    elif isinstance(parent, ast.ClassDef):
        owner, params = f"{parent.name}.{func.name}", params[1:]  # `runner.run(train_loader, ...)`
    elif isinstance(parent, ast.Module):
        owner = func.name
    else:
        return None
    slots = ([str(params.index(name.id))] if name.id in params else []) + [f"={name.id}"]
    for slot in slots:
        told = told_in_scope(ctx, f"{HANDED}{owner}:{slot}")
        if told:
            return set(told.split(","))
    return None


def train_loader_named(source: ast.expr) -> bool:
    """`train_loader`, `self.train_dl`, `loaders`: a name that says it holds the train loader (or the loaders)."""
    words = name_of(source).lower().rsplit(".", 1)[-1]
    tokens = set(words.split("_"))
    named = "train" in words and ("loader" in words or bool(tokens & {"dl", "dls"}))
    return named or words.endswith(("loaders", "dls"))
