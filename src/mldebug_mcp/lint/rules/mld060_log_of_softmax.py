import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.patterns import log_argument
from ..helpers.tensors_flow import shared_probability
from ..rule import Hit, Rule

LOGS = {"torch.log"}
# picking or reshaping entries of a probability tensor keeps them probabilities of the same softmax
PICK_METHODS = {"gather", "squeeze", "unsqueeze", "view", "reshape", "flatten", "index_select", "select",
                "take_along_dim", "float", "double", "contiguous"}
PICK_FUNCTIONS = {"torch.gather", "torch.take_along_dim", "torch.index_select", "torch.squeeze"}
STABLE = {"softmax": "F.log_softmax(x, dim)", "sigmoid": "F.logsigmoid(x)"}


class LogOfSoftmax(Rule):
    """What it does: flags the log of a softmax or sigmoid output: `torch.log(F.softmax(z, -1))`,
    `z.softmax(-1).log()`, `torch.log(torch.sigmoid(z))`, including when the softmax is applied
    in a variable, a helper or the model's forward.

    Why is this bad: the probability is computed first and only then logged, so a probability
    that underflows to 0 becomes -inf and then NaN in the loss or gradients, usually far from
    here and only once the model grows confident. log_softmax and logsigmoid compute the same
    value in log space without that underflow.
    """

    code = "MLD060"
    name = "log-of-softmax"
    category = "numerics"
    severity = "warning"
    message = "log of a {activation} output: underflows to -inf; use {stable}"
    why = "A probability that underflows to 0 gives log(0) = -inf and NaN gradients once the model is confident."
    fix = "Use F.log_softmax(z, dim) instead of log(softmax), and F.logsigmoid(z) instead of log(sigmoid)."
    evidence = "fsdl"
    node_types = (ast.Call,)
    call_names = frozenset({"log"})  # torch.log(x), x.log()
    requires_text = ('log',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "import torch.nn.functional as F\n"
        "def nll(logits, y):\n"
        "    logp = torch.log(F.softmax(logits, dim=-1))\n"
        "    return F.nll_loss(logp, y)\n"
    )
    GOOD = (
        "import torch.nn.functional as F\n"
        "def nll(logits, y):\n"
        "    logp = F.log_softmax(logits, dim=-1)\n"
        "    return F.nll_loss(logp, y)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        argument = log_argument(node, ctx, LOGS, {"log"})
        if argument is None:
            return
        activation = ctx.activation_of(argument)
        # a probability the function also uses elsewhere needs a floor, not log space: MLD061's finding
        if activation in STABLE and not shared_probability(node, argument, ctx):
            yield Hit(node, self.message.format(activation=activation, stable=STABLE[activation]))
            return
        picked = _picked_from(argument, ctx)
        if picked is None or picked[1] is argument:
            return
        activation = ctx.activation_of(picked[1])
        if activation == "softmax" and not _used_beside(node, picked[0], ctx):
            yield Hit(node, self.message.format(activation=activation, stable=STABLE[activation]))


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _picked_from(expr: ast.AST, ctx: ModuleContext) -> tuple[list[str], ast.AST] | None:
    """The tensor the log's argument picks its entries from (`ps[range(n), a]`, `probs.gather(1, a)`,
    through the names holding them), with those names; None when nothing is picked."""
    names, picked = [], False
    for _ in range(6):
        if isinstance(expr, ast.Name):
            names.append(expr.id)
            value = ctx.resolve(expr)
            if value is expr:
                break
            expr = value
        elif isinstance(expr, ast.Subscript):
            expr, picked = expr.value, True
        elif isinstance(expr, ast.Call) and ctx.call_name(expr) in PICK_FUNCTIONS and expr.args:
            expr, picked = expr.args[0], True
        elif isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) in PICK_METHODS:
            picked = picked or ctx.method_name(expr) in {"gather", "index_select", "select", "take_along_dim"}
            expr = expr.func.value
        else:
            break
    return (names, expr) if picked else None


def _used_beside(log: ast.AST, names: list[str], ctx: ModuleContext) -> bool:
    """Whether the function uses the picked probability (the log's own name) elsewhere, as a focal loss's
    `(1 - p) ** gamma` does; a use on the other arm of an if/else that holds the log does not count."""
    func = ctx.enclosing(log, FUNCTIONS)
    if func is None or not names:
        return False
    inside = {id(n) for n in ast.walk(log)}
    log_arms = _arms(log, ctx)
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id == names[0] and isinstance(node.ctx, ast.Load) \
                and id(node) not in inside and not any((anc, not arm) in log_arms for anc, arm in _arms(node, ctx)):
            return True
    return False


def _arms(node: ast.AST, ctx: ModuleContext) -> set[tuple[ast.AST, bool]]:
    """(if statement, True for its body / False for its else) for each if the node lies in."""
    found, child = set(), node
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.If) and child is not anc.test:
            found.add((anc, any(child is s for s in anc.body)))
        child = anc
    return found
