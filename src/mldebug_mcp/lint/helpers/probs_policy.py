"""A network's output that the same function samples from as probabilities (MLD061): `probs = self.actor(s)`,
then `Categorical(probs)` / `torch.multinomial(probs, 1)` / a helper building the action distribution from it,
and `torch.log(probs)` for the entropy or the policy loss. A softmax actor's probability rounds to exactly 0
for a dominated action, so the log is -inf and `probs * log_probs` is NaN (SAC-discrete, PPO with a softmax head)."""

import ast
import re

from ..context import ModuleContext
from .graph import latest_value

SAMPLERS = frozenset({"torch.distributions.Categorical", "torch.distributions.categorical.Categorical",
                      "torch.distributions.OneHotCategorical", "torch.multinomial",
                      "torch.distributions.one_hot_categorical.OneHotCategorical"})
# a callee building a sampling distribution from probabilities (`create_actor_distribution(kind, probs, n)`)
DISTRIBUTION_WORDS = re.compile(r"categorical|distribution|multinomial", re.IGNORECASE)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def sampled_network_probabilities(argument: ast.expr, ctx: ModuleContext) -> bool:
    """`argument` is a name holding a module's output (a call of an attribute or a parameter, no known
    function) that the enclosing function also hands to a categorical distribution as its probabilities."""
    if not isinstance(argument, ast.Name):
        return False
    value = latest_value(argument, ctx)
    if not isinstance(value, ast.Call) or ctx.call_name(value) is not None \
            or not isinstance(value.func, ast.Name | ast.Attribute) or ctx.method_name(value) in _TENSOR_METHODS:
        return False  # a known function (softmax is MLD060's) or a tensor method: not a network's raw output
    if ctx.enclosing(argument, FUNCS) is None:
        return False
    for call in ctx.in_scope(ctx.scope_of(argument), (ast.Call,)):
        if call is value or not _hands(call, argument.id):
            continue
        name = ctx.call_name(call) or ""
        callee = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        # the imported function's own name, not the alias it is called by (`import ... as m1`)
        if name in SAMPLERS or DISTRIBUTION_WORDS.search(callee) or DISTRIBUTION_WORDS.search(name.rsplit(".", 1)[-1]):
            return True
    return False


def _hands(call: ast.Call, name: str) -> bool:
    """`name` among the positional arguments or as `probs=` (never `logits=`)."""
    return any(isinstance(a, ast.Name) and a.id == name for a in call.args) \
        or any(k.arg == "probs" and isinstance(k.value, ast.Name) and k.value.id == name for k in call.keywords)


# methods whose result is a reshaped or reduced tensor, not a network's output
_TENSOR_METHODS = frozenset({"view", "reshape", "squeeze", "unsqueeze", "float", "detach", "clone", "to", "cpu",
                             "cuda", "sum", "mean", "exp", "sigmoid", "softmax", "gather", "clamp", "clip",
                             "abs", "sqrt", "pow", "norm", "max", "min", "cumsum", "cumprod"})
