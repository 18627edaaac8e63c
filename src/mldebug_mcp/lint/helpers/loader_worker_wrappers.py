"""A worker-aware wrapper dataset that does not reseed (MLD053): an IterableDataset whose `__iter__` asks
`get_worker_info()` (to tag or shard by worker) and iterates a dataset it was handed (`for b in self.dataset`),
in a project where another file's dataset draws from NumPy's global RNG. The wrapper is the one place that runs
first in every worker and knows its id, so it is where the per-worker reseed goes; without it every worker
starts from the parent's NumPy state and the wrapped dataset's draws repeat across workers."""

import ast

from ..context import ModuleContext
from .loader_facts import NUMPY_DRAWS, told_in_scope

WORKER_INFO = "torch.utils.data.get_worker_info"
# calls that make a worker's draws differ: a reseed, or torch's per-worker RNG
SEEDING = frozenset({"seed", "manual_seed", "default_rng", "RandomState", "set_state"})


def unseeded_worker_wrapper(cls: ast.ClassDef, ctx: ModuleContext) -> tuple[ast.AST, str] | None:
    """Where the reseed goes in `cls.__iter__` (the worker branch's first statement, else the
    get_worker_info() call), and where the wrapped data is drawn; None when this is not such a wrapper."""
    if not ctx.has_text("get_worker_info"):
        return None
    method = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__iter__"), None)
    if method is None:
        return None
    calls = [c for c in ast.walk(method) if isinstance(c, ast.Call)]
    asked = next((c for c in calls if ctx.call_name(c) == WORKER_INFO), None)
    if asked is None or not _iterates_wrapped(method):
        return None
    if any((ctx.call_name(c) or "").rsplit(".", 1)[-1] in SEEDING or ctx.method_name(c) in SEEDING
           for c in ast.walk(cls) if isinstance(c, ast.Call)):
        return None  # the wrapper reseeds its worker
    drawn = told_in_scope(ctx, f"{NUMPY_DRAWS}:*")
    if not drawn:
        return None
    return _worker_branch(asked, method, ctx) or asked, drawn


def _iterates_wrapped(method: ast.FunctionDef) -> bool:
    """`for b in self.dataset` / `iter(self.source)`: the samples come from a dataset kept on self."""
    def on_self(expr: ast.AST) -> bool:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "iter" and expr.args:
            expr = expr.args[0]
        return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"
    return any(isinstance(n, ast.For) and on_self(n.iter) for n in ast.walk(method))


def _worker_branch(asked: ast.Call, method: ast.FunctionDef, ctx: ModuleContext) -> ast.stmt | None:
    """The first statement of `if info:` / `if info is not None:` on the name get_worker_info() was bound to."""
    parent = ctx.parent(asked)
    if not isinstance(parent, ast.Assign) or not isinstance(parent.targets[0], ast.Name):
        return None
    name = parent.targets[0].id
    for node in ast.walk(method):
        if isinstance(node, ast.If) and node.body and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.test)):
            negated = isinstance(node.test, ast.UnaryOp) or (
                isinstance(node.test, ast.Compare) and isinstance(node.test.ops[0], ast.Is))
            body = node.orelse if negated else node.body
            return body[0] if body else None
    return None
