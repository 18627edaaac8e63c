"""Whether a value kept in a running total is a loss tensor that still carries its autograd graph (MLD032).

A value is live when it is computed by a loss (a criterion's call, arithmetic on one, a method that keeps
the graph), or, in a training step, when it is named as a loss and bound to a tensor expression that
nothing turned into a number: a call's result, an element unpacked from one, a value iterated out of a
dict or list of losses (`for name, value in loss_dict.items()`), what a local helper returns. A helper
whose returns are all numbers (`loss.item()`, `{k: v.item() ...}`) gives numbers.
"""

from __future__ import annotations

import ast
import re

from .graph import in_no_grad, is_loss_call, latest_value, module_index

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
DETACHING = {"item", "detach", "numpy", "tolist"}
# the result of these still holds the loss's graph
KEEPS_GRAPH = {"mean", "sum", "float", "double", "to", "cuda", "view", "reshape", "squeeze", "clone"}
NUMBERS = {"float", "int", "round"}
NEW_TENSORS = {"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.zeros", "torch.ones", "torch.empty",
               "torch.full", "torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.zeros_like",
               "torch.ones_like"}


def detached(value: ast.AST, ctx) -> bool:
    """loss.item(), loss.detach(), float(loss), loss.data: a number or a tensor without the graph."""
    if isinstance(value, ast.Attribute):
        return value.attr == "data"
    if isinstance(value, ast.Subscript):
        return detached(value.value, ctx)  # loss.data[0]
    if isinstance(value, ast.BinOp):  # loss.item() * batch_size
        return detached(value.left, ctx) or detached(value.right, ctx)
    return isinstance(value, ast.Call) and (ctx.method_name(value) in DETACHING or isinstance(value.func, ast.Name)
                                            and value.func.id in NUMBERS)


def is_loss_value(value: ast.AST, ctx) -> bool:
    """A loss call, arithmetic on one, or a graph-keeping method of one (`criterion(out, y).mean()`)."""
    while True:
        if is_loss_call(value, ctx):
            return True
        if isinstance(value, ast.BinOp):
            return is_loss_value(value.left, ctx) or is_loss_value(value.right, ctx)
        if isinstance(value, ast.Call) and ctx.method_name(value) in KEEPS_GRAPH and ctx.call_name(value) is None:
            value = value.func.value
            continue
        return False


def loss_named(expr: ast.AST) -> bool:
    name = expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""
    return "loss" in name.lower()


def named_loss_tensor(expr: ast.AST, ctx, depth: int = 3) -> bool:
    """In a training step: `expr` is named as a loss (or iterated out of a container named so) and holds a
    tensor expression nothing turned into a number."""
    if depth <= 0 or not isinstance(expr, ast.Name):
        return False
    value = latest_value(expr, ctx)
    if value is not None:
        if not loss_named(expr) or detached(value, ctx) or in_no_grad(value, ctx):
            return False
        if _numeric(value, ctx) or _returns_numbers(value, _position(expr, value, ctx), ctx):
            return False
        return isinstance(value, ast.Call | ast.BinOp | ast.Subscript | ast.Name)
    container = iterated_container(expr, ctx)
    if container is None:
        return False
    return (loss_named(expr) or loss_named(container)) and named_loss_tensor(container, ctx, depth - 1) \
        or is_loss_value(container, ctx)


def iterated_container(name: ast.Name, ctx) -> ast.expr | None:
    """`d` for `v` in `for k, v in d.items()`, `for v in d.values()`, `for v in d`, `for i, v in enumerate(d)`."""
    loop = None
    for anc in ctx.ancestors(name):
        if isinstance(anc, FUNCTIONS):
            return None
        if isinstance(anc, ast.For | ast.AsyncFor) and any(
                isinstance(n, ast.Name) and n.id == name.id for n in ast.walk(anc.target)):
            loop = anc
            break
        if isinstance(anc, ast.DictComp | ast.ListComp | ast.SetComp | ast.GeneratorExp):
            # `{k: running.get(k, 0) + v for k, v in losses.items()}`: a comprehension's generator is a loop
            loop = next((g for g in anc.generators if any(
                isinstance(n, ast.Name) and n.id == name.id for n in ast.walk(g.target))), None)
            if loop is not None:
                break
    if loop is None:
        return None
    source, target = loop.iter, loop.target
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate" \
            and source.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        source, target = source.args[0], target.elts[1]
    if isinstance(source, ast.Call) and ctx.method_name(source) == "items" and not source.args:
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name) \
                and target.elts[1].id == name.id:
            return source.func.value
        return None
    if isinstance(source, ast.Call) and ctx.method_name(source) == "values" and not source.args:
        source = source.func.value
    ok = isinstance(target, ast.Name) and target.id == name.id and isinstance(source, ast.Name | ast.Attribute)
    return source if ok else None


def local_callee(call: ast.Call, ctx) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function of this module a call runs: `helper(...)`, or `self.method(...)` of the enclosing class."""
    func = call.func
    if isinstance(func, ast.Name):
        return ctx.functions.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(call)
        if cls is not None:
            return next((n for n in cls.body if isinstance(n, FUNCTIONS[:2]) and n.name == func.attr), None)
    return None


def _position(name: ast.Name, value: ast.AST, ctx) -> int | None:
    """Where `name` sits in the tuple target `value` is unpacked into (`model, opt, loss = step(...)` -> 2)."""
    stmt = ctx.parent(value)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple):
        names = [e.id if isinstance(e, ast.Name) else None for e in stmt.targets[0].elts]
        return names.index(name.id) if name.id in names else None
    return None


def _returns_numbers(value: ast.AST, position: int | None, ctx) -> bool:
    """A call of a local helper whose every return (or its element at `position`) is visibly a number or a
    dict/list of numbers."""
    if not isinstance(value, ast.Call):
        return False
    func = local_callee(value, ctx)
    if func is None:
        return False
    returns = [r.value for r in ctx.in_scope(func, (ast.Return,)) if r.value is not None]
    if position is not None:
        returns = [r.elts[position] if isinstance(r, ast.Tuple) and position < len(r.elts) else r for r in returns]
    return bool(returns) and all(_numeric(r, ctx) for r in returns)


def _numeric(expr: ast.AST, ctx, depth: int = 4) -> bool:
    """A number or a container of numbers (or of detached tensors): constants, `.item()`, `float(x)`, `len(x)`,
    `x.size(0)`, arithmetic on those, a name every assignment of which (`+=` too) is one."""
    if depth <= 0:  # counts the names followed, not the size of an expression
        return False
    if isinstance(expr, ast.Constant) or isinstance(expr, ast.Attribute | ast.Subscript) and detached(expr, ctx):
        return True
    if isinstance(expr, ast.Subscript):
        return _numeric(expr.value, ctx, depth)  # total[0] of a number-valued total
    if isinstance(expr, ast.Name):
        if _entries_detached(expr, ctx):
            return True
        value = latest_value(expr, ctx)
        if value is None or isinstance(value, ast.Name) and value.id == expr.id:
            return False
        more = module_index(ctx)["augmented"].get((ctx.scope_of(expr), expr.id), ())
        return _numeric(value, ctx, depth - 1) and all(_numeric(a.value, ctx, depth - 1) for a in more)
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.Div | ast.FloorDiv) and _numeric(expr.left, ctx, depth) \
                and not (loss_named(expr.right) or is_loss_value(expr.right, ctx)):
            return True  # a total of numbers over anything not a loss (a count: `running / sizes[phase]`) is a number
        # a number over a setting (`total_loss / args.log_interval`) is a number
        return (_numeric(expr.left, ctx, depth) or _setting(expr.left)) and (
            _numeric(expr.right, ctx, depth) or _setting(expr.right)) and not (
            _setting(expr.left) and _setting(expr.right))
    if isinstance(expr, ast.UnaryOp):
        return _numeric(expr.operand, ctx, depth)
    if isinstance(expr, ast.DictComp):
        return detached(expr.value, ctx)
    if isinstance(expr, ast.ListComp | ast.GeneratorExp | ast.SetComp):
        return detached(expr.elt, ctx)
    if isinstance(expr, ast.Dict):
        return bool(expr.values) and all(v is not None and _numeric(v, ctx, depth) for v in expr.values)
    if isinstance(expr, ast.Tuple | ast.List):
        return bool(expr.elts) and all(_numeric(e, ctx, depth) for e in expr.elts)
    if isinstance(expr, ast.Call):
        if detached(expr, ctx):
            return True  # a graph-free tensor is as harmless as a number here
        if isinstance(expr.func, ast.Name) and expr.func.id in {"len", "float", "int", "round", "sum", "max", "min"}:
            return expr.func.id in {"len", "float", "int", "round"} or all(_numeric(a, ctx, depth)
                                                                          for a in expr.args)
        name = ctx.call_name(expr) or ""
        # a new tensor (torch.tensor(stats)) or a NumPy value holds no autograd graph
        return ctx.method_name(expr) in {"item", "size", "numel", "dim", "tolist"} or name in NEW_TENSORS \
            or name.startswith(("numpy.", "math.", "statistics."))
    return False


def _entries_detached(name: ast.Name, ctx) -> bool:
    """`for k, v in stats.items(): stats[k] = v.detach()` before `name` is read: every entry of the dict was
    replaced by a number or a graph-free tensor, whatever it held before (a step's dict of losses for logging)."""
    scope = ctx.scope_of(name)
    loops = ctx.memo(("accum-detaching-loops", scope), lambda: _detaching_loops(scope, ctx))
    return any(line < name.lineno for line in loops.get(name.id, ()))


def _detaching_loops(scope, ctx) -> dict[str, list[int]]:
    """Per dict name in the scope, the lines of the loops over its items that store each entry back graph-free."""
    found: dict[str, list[int]] = {}
    for loop in ctx.in_scope(scope, (ast.For,)):
        iterated = loop.iter
        if not (isinstance(iterated, ast.Call) and ctx.method_name(iterated) == "items"
                and isinstance(iterated.func.value, ast.Name)
                and isinstance(loop.target, ast.Tuple) and isinstance(loop.target.elts[0], ast.Name)):
            continue
        stats, key = iterated.func.value.id, loop.target.elts[0].id
        if any(isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)
               and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == stats
               and isinstance(stmt.targets[0].slice, ast.Name) and stmt.targets[0].slice.id == key
               and _graph_free(stmt.value, ctx) for stmt in loop.body):
            found.setdefault(stats, []).append(loop.lineno)
    return found


def _graph_free(expr: ast.AST, ctx) -> bool:
    """`v.detach().clone().mean() * (n / total)`: a detached value through graph-keeping methods, scaled by
    values that are not losses."""
    if detached(expr, ctx):
        return True
    if isinstance(expr, ast.Call) and ctx.method_name(expr) in KEEPS_GRAPH and ctx.call_name(expr) is None:
        return _graph_free(expr.func.value, ctx)
    if isinstance(expr, ast.BinOp):
        kept = [side for side in (expr.left, expr.right) if not _graph_free(side, ctx)]  # each side judged once
        return len(kept) < 2 and not any(loss_named(n) or is_loss_call(n, ctx) for side in kept for n in ast.walk(side))
    return False


SETTINGS = re.compile(r"(self\.)?(args|cfg|config|conf|opt|opts|options|hparams|hp|params|settings|flags)\.\w+$")


def _setting(expr: ast.AST) -> bool:
    """A run setting read from the parsed arguments or a config (`args.log_interval`, `self.cfg.batch`)."""
    return isinstance(expr, ast.Attribute) and bool(SETTINGS.match(ast.unparse(expr)))


FRAMEWORK_STEPS = {"training_step"}  # Lightning's: the framework runs backward() on what it returns


def framework_step(region: ast.AST) -> bool:
    return isinstance(region, FUNCTIONS[:2]) and region.name in FRAMEWORK_STEPS


def trains(region: ast.AST, ctx) -> bool:
    """The loop or function runs a backward(), itself or through a local function or method it calls, or is a
    framework's training step (Lightning's `training_step`, whose returned loss the framework backwards)."""
    def compute() -> bool:
        if region in ctx.backward_scopes or framework_step(region):
            return True
        if not ctx.backward_scopes:
            return False  # no backward() in the file: no callee runs one either
        calls = (n for n in ast.walk(region) if isinstance(n, ast.Call))
        return any(local_callee(c, ctx) in ctx.backward_scopes for c in calls)

    return ctx.memo(("accum-trains", region), compute)


# A training step that hands back what it backwarded (`loss.backward(); return loss`, `losses.total.backward();
# return losses`): its caller's running sums of that result keep every step's graph. A step of another file
# of the run is told through the project index: backwards:<function or method name> -> 'returns'.
STEP_FACT = "backwards:"
LIBRARIES = ("torch.", "numpy.", "math.", "sklearn.", "transformers.", "accelerate.", "lightning.")
RETURNS = "returns"


def step_facts(ctx) -> dict[str, str]:
    """The functions and methods of this file that return a value they ran backward() on."""
    if not ctx.has_text("backward"):  # most library files: nothing to walk
        return {}
    funcs = list(ctx.functions.values()) + [f for cls in ctx.classes.values() for f in cls.body
                                             if isinstance(f, FUNCTIONS[:2])]
    found = {}
    for f in funcs:
        if returns_backwarded(f, ctx):
            positions = live_positions(f, ctx)
            # `returns:0` (the elements that carry the graph) when the step returns a tuple
            found[f"{STEP_FACT}{f.name}"] = RETURNS if positions is None else \
                f"{RETURNS}:{','.join(map(str, sorted(positions)))}"
    return found


def returns_backwarded(func: ast.AST, ctx) -> bool:
    """`func` runs backward() on a value (or on an entry of one: `losses.total.backward()`) and returns it, a
    part it was summed from (`total = a + b; total.backward(); return a, b, total`) or a container of them."""
    def compute() -> bool:
        # build_context marks every function around a .backward() call; Lightning's manual_backward is the other way
        own = func in ctx.backward_scopes or ctx.has_text("manual_backward")
        helpers = _backwarding_helpers(func, ctx)
        if not own and not helpers:
            return False
        live, live_attrs = set(), set()
        for call in ast.walk(func) if own else ():
            if isinstance(call, ast.Call) and ctx.method_name(call) in {"backward", "manual_backward"}:
                target = call.args[0] if call.args else call.func.value  # accelerator.backward(loss)
                live |= {_root(target)} - {None}
        for helper in helpers:  # `self.update()` backwards `self.loss`: state on self crosses the call
            for call in ast.walk(helper):
                if isinstance(call, ast.Call) and ctx.method_name(call) == "backward" \
                        and isinstance(call.func.value, ast.Attribute) and _root(call.func.value) == "self":
                    live_attrs.add(call.func.value.attr)
        returns = [r.value for r in ctx.in_scope(func, (ast.Return,)) if r.value is not None]
        if live_attrs and any(_live_self_attrs(e, ctx) & live_attrs for r in returns for e in _elements(r)):
            return True
        if not live:
            return False
        bindings = ctx.bindings.get(func, {})
        for name in list(live):  # the parts a backwarded sum was built from carry the same graph
            for value in bindings.get(name, ()):
                if isinstance(value, ast.BinOp):
                    live |= {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        # which elements of a returned tuple carry it (`return loss, sample_size, log`: only the first)
        shapes = {len(r.elts) if isinstance(r, ast.Tuple) else None for r in returns}
        if len(shapes) == 1 and None not in shapes:
            ctx.memo(("accum-step-live-positions", func), lambda: frozenset(
                i for r in returns for i, e in enumerate(r.elts) if _live_roots(e, ctx) & live))
        return any(_live_roots(e, ctx) & live for r in returns for e in _elements(r))

    return ctx.memo(("accum-step-returns", func), compute)


def live_positions(func: ast.AST, ctx) -> frozenset[int] | None:
    """The elements of the tuple `func` returns that carry what it backwarded, when every return is a tuple of one
    length and the function returns a backwarded value (None: not known)."""
    if not returns_backwarded(func, ctx):
        return None
    return ctx.memo(("accum-step-live-positions", func), lambda: None)


def _backwarding_helpers(func: ast.AST, ctx) -> list[ast.AST]:
    """The methods of func's class that func calls on self and that run a backward() themselves."""
    cls = ctx.enclosing_class(func) if isinstance(func, FUNCTIONS[:2]) else None
    if cls is None:
        return []
    methods = ctx.memo(("accum-backwarding-methods", cls), lambda: {
        f.name: f for f in cls.body if isinstance(f, FUNCTIONS[:2]) and f in ctx.backward_scopes})
    if not methods:
        return []
    return [methods[c.func.attr] for c in ctx.in_scope(func, (ast.Call,)) if isinstance(c.func, ast.Attribute)
            and isinstance(c.func.value, ast.Name) and c.func.value.id == "self" and c.func.attr in methods
            and methods[c.func.attr] is not func]


def from_backward_step(expr: ast.AST, ctx, depth: int = 4) -> bool:
    """`expr` holds (an element of) what a training step returned after running backward() on it, through names
    and unpacking: `rpn, cls, total = step(...)`, `losses = trainer.train_step(batch)`."""
    if depth <= 0 or expr is None:
        return False
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        if isinstance(value, ast.Call) and not detached(value, ctx):  # `_, n, log = step(...)`: which element
            return _step_call_returns(value, _position(expr, value, ctx), ctx)
        return from_backward_step(value, ctx, depth - 1)
    if isinstance(expr, ast.Subscript | ast.Attribute):
        return from_backward_step(expr.value, ctx, depth - 1)
    if not isinstance(expr, ast.Call) or detached(expr, ctx):
        return False
    return _step_call_returns(expr, None, ctx)


def _step_call_returns(call: ast.Call, position: int | None, ctx) -> bool:
    """The call runs a training step that returns what it backwarded (its element at `position`, when known)."""
    local = local_callee(call, ctx)
    if local is not None:
        positions = live_positions(local, ctx) if position is not None else None
        return returns_backwarded(local, ctx) and (positions is None or position in positions)
    name = ctx.method_name(call) or (call.func.id if isinstance(call.func, ast.Name) else None)
    if name is None or ctx.project is None or (ctx.call_name(call) or "").startswith(LIBRARIES):
        return False  # torch's, NumPy's and other libraries' functions are not this project's training steps
    told = ctx.project.kind_returned_by(f"{STEP_FACT}{name}") or ""
    if told == RETURNS:
        return True
    if not told.startswith(f"{RETURNS}:"):
        return False
    return position is None or str(position) in told.split(":", 1)[1].split(",")


def _live_roots(expr: ast.AST, ctx) -> set[str]:
    """The names a returned value carries the graph of: `loss`, `losses.total`, `loss * world_size`, `loss.mean()`
    (not `loss.item()`, `loss.data[0]` and the like)."""
    return {root for leaf in _live_leaves(expr, ctx) if (root := _root(leaf)) is not None}


def _live_self_attrs(expr: ast.AST, ctx) -> set[str]:
    """The attributes of self a returned value carries the graph of: `self.loss`, `self.loss * 2`."""
    found = set()
    for leaf in _live_leaves(expr, ctx):
        while isinstance(leaf, ast.Subscript):
            leaf = leaf.value
        if isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == "self":
            found.add(leaf.attr)
    return found


def _live_leaves(expr: ast.AST, ctx) -> list[ast.AST]:
    """The operands a returned value carries the graph of: through arithmetic and graph-keeping methods
    (`loss.mean()`), stopping at anything detached (`loss.item()`, `loss.detach()`)."""
    if detached(expr, ctx):
        return []
    if isinstance(expr, ast.BinOp):
        return _live_leaves(expr.left, ctx) + _live_leaves(expr.right, ctx)
    if isinstance(expr, ast.Call) and ctx.method_name(expr) in KEEPS_GRAPH and ctx.call_name(expr) is None:
        return _live_leaves(expr.func.value, ctx)
    return [expr]


def _root(expr: ast.AST) -> str | None:
    while isinstance(expr, ast.Attribute | ast.Subscript):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _elements(expr: ast.AST) -> list[ast.AST]:
    if isinstance(expr, ast.Tuple | ast.List):
        return list(expr.elts)
    if isinstance(expr, ast.Dict):
        return [v for v in expr.values if v is not None]
    return [expr]
