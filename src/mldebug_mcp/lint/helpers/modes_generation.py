"""A trainer class's own generation method: `fit()` trains `self.generator`, `sample(n)` runs it to produce
data for the user. The class owns the model and its mode; nothing switches it between fit() and sample()."""
import ast

from ..context import ModuleContext
from .evaluation import scope_calls, tokens
from .loops import is_optimizer_step
from .modes_evidence import drives_itself, scope_trains

GENERATION = {"sample", "samples", "sampling", "generate", "generation", "synthesize", "synthesise", "synthesis",
              "predict", "prediction", "infer", "inference"}


def generates_for_user(call: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """`key` (a `self.` model) runs in a method named for generating or predicting, of a class another of whose
    methods updates it with an optimizer step, and the method trains nothing and keeps the output (not a bare statement)."""
    if not key.startswith("self.") or not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if not GENERATION & set(tokens(scope.name)) or isinstance(ctx.parent(call), ast.Expr):
        return False
    cls = ctx.enclosing_class(scope)
    if cls is None or scope not in cls.body or not drives_itself(cls, ctx) or scope_trains(scope, ctx):
        return False
    # an update, not only backward(): input gradients (an OOD detector's ODIN step) train nothing
    return any(m is not scope and _mentions(m, key) and any(is_optimizer_step(c, ctx) for c in scope_calls(m, ctx))
               for m in cls.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef))


def _mentions(func: ast.AST, key: str) -> bool:
    return any(isinstance(n, ast.Attribute) and ast.unparse(n) == key for n in ast.walk(func))
