"""A submodule left out when an optimiser is built from the model's parts one by one.

`groups = [{"params": model.backbone.parameters(), "lr": lr / 10}]`, `groups += [{"params":
model.head.parameters()}]` (per-part learning rates), while the model's class also builds `self.down =
nn.ConvTranspose2d(...)` and runs it in forward: nobody adds that part's group, so it never trains. The
model's class is read here: `self` (an optimiser built inside the model), a local class the model was
built from, or the one local class that defines every part listed. Parts the class or the file freezes,
and parts any optimiser of the file holds, stay out.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .optim_children_facts import called_parts, freezes_in, told_parts
from .optim_params import covered, dotted, is_optimizer_name, params_argument
from .optim_steps import FUNCTIONS
from .optim_untrained import has_parameters, strip_moves


def left_out_parts(optimizer: ast.Call, ctx: ModuleContext) -> list[tuple[str, str, str | None]]:
    """(path, where it is built: 'line N' or 'file:N', the one part listed when only one is) of each weighted part
    of the model the optimiser's groups leave out."""
    sources = _gathered(params_argument(optimizer), optimizer, ctx)
    if not sources:
        return []
    roots = {path.split(".")[0] for path, _ in sources}
    if len(roots) != 1 or any("." not in path for path, _ in sources):
        return []  # the whole model, or parts of several objects
    root = roots.pop()
    # the parts named right after the root: `self.backbone.x` lists `backbone` of the class the optimiser is
    # built in; a trainer's `self.model.backbone`, `self.model.head` list the one part `model`, left alone
    listed = {path.split(".")[1] for path, _ in sources}
    # one part listed (`Adam(self.encoder.parameters())`) may be a deliberate choice of what to train, except
    # against a loss module with weights of its own that the class runs (a learned temperature or margin)
    only_losses = len(listed) < 2
    cls = _model_class(root, listed, optimizer, ctx)
    held = _held_nearby(ctx.scope_of(optimizer), ctx)
    found = []
    if only_losses and cls is None:
        return []
    if cls is None:  # a model handed in whose class another file of the run defines
        told = told_parts(listed, ctx) if root != "self" and ctx.enclosing(optimizer, FUNCTIONS) is not None else None
        for name, where in told or ():
            path = f"{root}.{name}"
            if name not in listed and path not in held and name not in {h.rsplit(".", 1)[-1] for h in held} \
                    and not _freezes_here(path, optimizer, ctx):
                found.append((path, where, None))
        return found
    for name, line in _weighted_parts(cls, ctx):
        path = f"{root}.{name}"
        if name in listed or path in held or name in {h.rsplit(".", 1)[-1] for h in held} \
                or _freezes_here(path, optimizer, ctx) or _class_freezes(cls, name, ctx) or name not in called_parts(cls) \
                or (only_losses and not (_loss_part(cls, name, ctx) and _run_in_training(cls, name, ctx))):
            continue
        found.append((path, f"line {line}", f"{root}.{next(iter(listed))}" if only_losses else None))
    return found


LOSS_WORDS = re.compile(r"(?i)loss|criterion")
TRAINING_METHODS = {"training_step", "train_step", "forward", "compute_loss", "shared_step", "step", "fit"}


def _run_in_training(cls: ast.ClassDef, name: str, ctx: ModuleContext) -> bool:
    """`self.<name>(...)` is called in a training method (one that back-propagates or is named for the training
    step), directly or in a helper method such a method calls."""
    methods = {m.name: m for m in cls.body if isinstance(m, FUNCTIONS)}

    def calls(method: ast.AST, target: str) -> bool:
        return any(isinstance(n, ast.Call) and dotted(n.func) == target for n in ast.walk(method))

    def trains(method: ast.AST) -> bool:
        return method.name in TRAINING_METHODS or method in ctx.backward_scopes

    for caller in [m for m in methods.values() if calls(m, f"self.{name}")]:
        if trains(caller) or any(trains(m) and calls(m, f"self.{caller.name}") for m in methods.values()):
            return True
    return False


def _loss_part(cls: ast.ClassDef, name: str, ctx: ModuleContext) -> bool:
    """`self.loss_fn = PrototypicalLoss(...)`: a part named for a loss, or built from a class named so."""
    if LOSS_WORDS.search(name):
        return True
    built = next((ctx.call_name(strip_moves(v)) for v in ctx.class_attrs.get(cls.name, {}).get(name, ())
                  if isinstance(strip_moves(v), ast.Call)), None)
    return bool(built and LOSS_WORDS.search(built.rsplit(".", 1)[-1]))


def _gathered(expr: ast.AST | None, optimizer: ast.Call, ctx: ModuleContext) -> list | None:
    """What a list of params/groups holds: its first value and what `+=`, append and extend add to it
    in the same function before the optimiser."""
    if not isinstance(expr, ast.Name):
        return covered(expr, ctx) if expr is not None else None
    scope = ctx.scope_of(optimizer)
    pieces: list[ast.AST] = []
    for node in ctx.in_scope(scope, (ast.Assign, ast.AugAssign, ast.Call)):
        if node.lineno >= optimizer.lineno:
            continue
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets):
            pieces = [node.value]  # a fresh list: what came before is gone
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == expr.id:
            pieces.append(node.value)
        elif isinstance(node, ast.Call) and ctx.method_name(node) in {"append", "extend"} and node.args \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == expr.id:
            pieces.append(ast.List(elts=[node.args[0]]) if ctx.method_name(node) == "append" else node.args[0])
    if not pieces:
        return None
    found = [_through_loops(p, covered(p, ctx), ctx) for p in pieces
             if not (isinstance(p, ast.List | ast.Tuple) and not p.elts)]
    if any(f is None for f in found):
        return None
    return [c for f in found for c in f]


def _through_loops(piece: ast.AST, sources: list | None, ctx: ModuleContext) -> list | None:
    """A group built in a loop over the model's parts (`for depth, layer in enumerate(reversed(layers))` with
    `layers = [model.backbone.embeddings] + list(model.backbone.encoder.layer)`, layer-wise learning rates) draws
    from those parts: the loop variable stands for them."""
    if not sources:
        return sources
    real = piece.elts[0] if isinstance(piece, ast.List) and len(piece.elts) == 1 and not hasattr(piece, "lineno") \
        else piece
    loops = {n.id: loop for loop in ctx.ancestors(real) if isinstance(loop, ast.For)
             for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    result = []
    for path, flag in sources:
        head, _, rest = path.partition(".")
        loop = loops.get(head)
        if loop is None:
            result.append((path, flag))
            continue
        parts = _loop_parts(loop.iter, ctx)
        if not parts:
            return None  # a loop over something we cannot read
        result.extend((f"{p}.{rest}" if rest else p, flag) for p in parts)
    return result


def _loop_parts(expr: ast.AST, ctx: ModuleContext, depth: int = 3) -> list[str] | None:
    """The dotted modules a loop iterates over: through enumerate/reversed/list/sorted, `+` and list literals."""
    if depth <= 0:
        return None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in (
            "enumerate", "reversed", "list", "sorted", "tuple") and expr.args:
        return _loop_parts(expr.args[0], ctx, depth)
    if isinstance(expr, ast.Starred):
        return _loop_parts(expr.value, ctx, depth)
    if isinstance(expr, ast.Name):
        value = ctx.resolve(expr)
        return None if value is expr or value is None else _loop_parts(value, ctx, depth - 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _loop_parts(expr.left, ctx, depth), _loop_parts(expr.right, ctx, depth)
        return None if left is None or right is None else left + right
    if isinstance(expr, ast.List | ast.Tuple):
        found = [_loop_parts(e, ctx, depth) for e in expr.elts]
        return None if any(f is None for f in found) else [p for f in found for p in f]
    path = dotted(expr) if isinstance(expr, ast.Attribute) else None
    return [path] if path else None


def _model_class(root: str, listed: set[str], optimizer: ast.Call, ctx: ModuleContext) -> ast.ClassDef | None:
    if root == "self":
        return ctx.enclosing_class(optimizer)
    function = ctx.enclosing(optimizer, FUNCTIONS)
    name_node = next((n for n in ast.walk(optimizer) if isinstance(n, ast.Name) and n.id == root), None)
    if name_node is None:  # the groups gathered in a list first (`groups += [...]`): the model named there
        name_node = max((n for n in ctx.in_scope(ctx.scope_of(optimizer), (ast.Name,))
                         if n.id == root and n.lineno <= optimizer.lineno and isinstance(n.ctx, ast.Load)),
                        key=lambda n: (n.lineno, n.col_offset), default=None)
    built = ctx.constructed(name_node) if name_node is not None else None
    if built:
        return ctx.classes.get(built)
    if function is None:
        return None
    # a model handed in: the one local class that builds every listed part
    matching = [c for c in ctx.classes.values() if listed <= {n for n, _ in _weighted_parts(c, ctx, all_parts=True)}]
    return matching[0] if len(matching) == 1 else None


def _weighted_parts(cls: ast.ClassDef, ctx: ModuleContext, all_parts: bool = False) -> list[tuple[str, int]]:
    """(attribute, line) of `self.X = Module(...)` in the class's __init__: with weights (or any module)."""
    init = next((n for n in cls.body if isinstance(n, FUNCTIONS) and n.name == "__init__"), None)
    found = []
    for node in ast.walk(init) if init is not None else ():
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                and dotted(node.targets[0].value) == "self" and isinstance(node.value, ast.Call):
            value = strip_moves(node.value)
            if all_parts or (isinstance(value, ast.Call) and has_parameters(value, ctx)):
                found.append((node.targets[0].attr, node.lineno))
    return found


def _freezes_here(path: str, optimizer: ast.Call, ctx: ModuleContext) -> bool:
    """The function building the optimiser freezes the part (or puts it in eval mode)."""
    function = ctx.enclosing(optimizer, FUNCTIONS)
    return function is not None and freezes_in(function, path, ctx)


def _class_freezes(cls: ast.ClassDef, name: str, ctx: ModuleContext) -> bool:
    return freezes_in(cls, f"self.{name}", ctx)


def _held_nearby(scope: ast.AST, ctx: ModuleContext) -> set[str]:
    """What the optimisers built in this scope hold, and what add_param_group adds anywhere."""
    def compute() -> set[str]:
        held: set[str] = set()
        for call in ctx.by_type.get(ast.Call, ()):
            if is_optimizer_name(ctx.call_name(call)) and ctx.scope_of(call) is scope:
                params = params_argument(call)
                found = _gathered(params, call, ctx) if params is not None else None
                held |= {p for p, _ in found or ()}
            elif ctx.method_name(call) == "add_param_group":
                held |= {d for n in ast.walk(call) if isinstance(n, ast.Attribute) for d in [dotted(n)] if d}
        return held
    return ctx.memo(("optim_children.held", scope), compute)
