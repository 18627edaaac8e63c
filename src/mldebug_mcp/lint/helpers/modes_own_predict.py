"""A model class's own inference method that runs the model in whatever mode it was left in (MLD020).

`SpanModel.predict(texts)` tokenises, then `self(**inputs)` (itself, or through a private helper such as
`self._predict_one(...)`): a library's public entry point for inference. Right after `trainer.train()` the
model is in training mode, so predict() answers with dropout on and BatchNorm's batch statistics unless it
calls self.eval() itself, as inference APIs do (sentence-transformers' encode(), sklearn-style wrappers).

Only public methods named for inference that run the whole model (`self(...)`, `self.forward(...)`), in a
class that switches no mode anywhere, trains nothing, and does not call the method itself (a step of its
forward or training). Monte Carlo dropout and methods under an eval-mode decorator are left alone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from .evaluation import ident, tokens
from .modes import direct_switch
from .modes_anchor import log_line
from .modes_evidence import drives_itself, mc_dropout
from .modes_models import class_mode_free

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
INFERENCE_VERBS = {"predict", "inference", "infer", "encode", "embed", "transcribe", "classify", "detect",
                   "recognize", "recognise", "translate", "tag", "segment"}
MODEL_BASE = re.compile(r"Module$|Model$|^Module|PreTrained")


def inference_methods_without_eval(ctx: ModuleContext) -> Iterator[tuple[ast.AST, ast.ClassDef, ast.AST]]:
    """(where self.eval() goes, class, method) for each such method."""
    # the cheap test first, by names: only a public method named for inference is reported (most classes have none)
    classes = [cls for cls in ctx.classes.values()
               if any(isinstance(m, FUNCS) and _inference_named(m.name) for m in cls.body)]
    if not classes or not (ctx.has_text("self(") or ctx.has_text("self.forward(")):
        return  # no method runs its own model
    for cls in classes:
        if not any(MODEL_BASE.search(ident(b) or "") for b in cls.bases) or drives_itself(cls, ctx):
            continue
        methods = {m.name: m for m in cls.body if isinstance(m, FUNCS)}
        if _switches(cls) or _reads_training(cls):
            continue  # the class handles its mode somewhere: the author knows
        if class_mode_free(cls, ctx):
            continue  # built only of layers eval() does not change (a one-layer LSTM, Linear, LayerNorm)
        called = _called_on_self(cls)
        if any("Lightning" in (ident(b) or "") for b in cls.bases):
            continue  # Lightning's predict_step(): the trainer sets the mode
        for name, method in methods.items():
            if name in called or not _inference_named(name):
                continue
            if _eval_decorated(method) or mc_dropout(method, ctx):
                continue
            if _runs_self(method) or any(_runs_self(methods[h]) for h in self_calls(method) if h in methods
                                         and h.startswith("_")):
                yield opening_past_logs(method), cls, method


def _inference_named(name: str) -> bool:
    return not name.startswith("_") and not name.endswith("step") and bool(INFERENCE_VERBS & set(tokens(name)))


def _switches(cls: ast.ClassDef) -> bool:
    return any(isinstance(n, ast.Call) and direct_switch(n) is not None for n in ast.walk(cls))


def _reads_training(cls: ast.ClassDef) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "training" for n in ast.walk(cls))


def _called_on_self(cls: ast.ClassDef) -> set[str]:
    return {n for m in cls.body if isinstance(m, FUNCS) for n in self_calls(m)}


def self_calls(function: ast.AST) -> set[str]:
    """The names `function` calls on self (`self._predict_one(x)`: '_predict_one'); modes_inherited asks it too."""
    return {n.func.attr for n in ast.walk(function) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"}


def _runs_self(function: ast.AST) -> bool:
    """`self(**inputs)` or `self.forward(batch)` on inputs the method prepared (tokenised, collated, moved):
    the whole model's forward inside an inference pipeline. A thin alias of forward (`predict(self, x)` that
    returns `self.forward(x)` as numpy) runs in its caller's mode, like forward itself."""
    params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    return any(isinstance(n, ast.Call) and (n.args or n.keywords) and (
        isinstance(n.func, ast.Name) and n.func.id == "self" or isinstance(n.func, ast.Attribute)
        and n.func.attr == "forward" and isinstance(n.func.value, ast.Name) and n.func.value.id == "self")
        and not all(isinstance(a, ast.Name) and a.id in params for a in [*n.args, *(k.value for k in n.keywords)])
        for n in ast.walk(function))


def _eval_decorated(method: ast.AST) -> bool:
    return any("eval" in tokens(ident(d.func if isinstance(d, ast.Call) else d) or "") for d in method.decorator_list)


def opening_past_logs(method: ast.AST) -> ast.stmt:
    """The first statement that does the work: past the docstring, imports, log lines and warning blocks
    (`if on_cpu: warnings.warn(...)`); an early return for empty input is already the work."""
    for stmt in method.body:
        if not (_docstring(stmt) or isinstance(stmt, ast.Import | ast.ImportFrom) or log_line(stmt) or (
                isinstance(stmt, ast.If) and not stmt.orelse and all(map(log_line, stmt.body)))):
            return stmt
    return method.body[0]


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
