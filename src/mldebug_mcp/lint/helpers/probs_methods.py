"""A class whose methods hand probabilities on (MLD061): one returns probabilities (a predictive distribution's
averaged softmax, a normalised count), and its log-probability method takes the log of the parameter it is given
(`def log_prob(self, value, probs): torch.log(probs)`). The base class or the caller joins the two, often in
another file, so the link is the class: the log-probability method is how its probabilities are scored."""

import ast
import re

from ..context import ModuleContext
from .graph import latest_value
from .kinds import PROBABILITIES, kind_of
from .kinds.vocabulary import KEEP_METHODS

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
LOG_PROB_NAME = re.compile(r"log_?(prob|pmf|lik|density)|logp|nll|neg_log")
# reductions over samples or members that keep a probability a probability
AVERAGES = frozenset({"mean", "nanmean"})
KEPT = AVERAGES | KEEP_METHODS  # methods whose result is still the probabilities they are called on
SUMS = frozenset({"sum", "torch.sum"})


def class_probabilities_logged(log: ast.Call, argument: ast.expr, ctx: ModuleContext) -> str | None:
    """The sibling method returning probabilities, when `log` takes the log of a bare parameter of a
    log-probability method (named so) of a class that has one; else None."""
    func = ctx.enclosing(log, FUNCS)
    if func is None or not isinstance(argument, ast.Name) or not LOG_PROB_NAME.search(func.name.lower()):
        return None
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    if argument.id not in params or latest_value(argument, ctx) is not None:
        return None  # not a parameter as given: reassigned (maybe floored) before the log
    cls = ctx.enclosing_class(func)
    if cls is None:
        return None
    producer = next((m for m in cls.body if isinstance(m, FUNCS) and m is not func and _returns_probabilities(m, ctx)),
                    None)
    return producer.name if producer is not None else None


def _returns_probabilities(func: ast.AST, ctx: ModuleContext) -> bool:
    def compute() -> bool:
        returns = [r.value for r in ctx.in_scope(func, (ast.Return,)) if r.value is not None]
        return bool(returns) and all(_probabilities(r, ctx, 6) for r in returns)

    return ctx.memo(("probs-methods", func), compute)


def _probabilities(expr: ast.AST, ctx: ModuleContext, depth: int) -> bool:
    """Softmax or sigmoid outputs, or a normalised ratio `x / x.sum(...)`, averaged or reshaped."""
    if depth <= 0:
        return False
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        return value is not None and _probabilities(value, ctx, depth - 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        total = expr.right
        return isinstance(total, ast.Call) and (ctx.call_name(total) in SUMS or ctx.method_name(total) in SUMS)
    if not isinstance(expr, ast.Call):
        return False
    if ctx.call_name(expr) is None and isinstance(expr.func, ast.Attribute) \
            and expr.func.attr in KEPT:
        return _probabilities(expr.func.value, ctx, depth - 1)
    return kind_of(expr, ctx) in PROBABILITIES
