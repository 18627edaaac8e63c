import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.logs_of_softmax import STABLE, logged_activation
from ..helpers.logs_without_gradient import log_without_gradient
from ..rule import Hit, Rule


class LogOfSoftmax(Rule):
    """What it does: flags the log of a softmax or sigmoid output: `torch.log(F.softmax(z, -1))`,
    `z.softmax(-1).log()`, `torch.log(torch.sigmoid(z))`, including when the softmax is applied
    in a variable, a helper or the model's forward; for entries picked from a model's output
    (`ps[range(n), a].log()`, `torch.log(model.pi(s).gather(1, a))`), also a method's softmax and one
    another file's forward applies on one of its branches. A log that only ranks in a search that runs no
    backward and computes no loss (a Viterbi decoder's `torch.log(F.softmax(alphas))` into `torch.max`, a beam
    search's scores into `topk`), or one turned into a number at once for display (`p[i].log().item()`), is left
    quiet unless what is computed from it is multiplied, summed or averaged, or handed to a loss.

    Why is this bad: the probability is computed first and only then logged, so a probability
    that underflows to 0 becomes -inf and then NaN in the loss or gradients, usually far from
    here and only once the model grows confident. log_softmax and logsigmoid compute the same
    value in log space without that underflow. Reported as info (numerical hygiene): the underflow needs a
    probability below about 1e-38 in float32; the judges of the precision samples called 1 of 6 sampled
    findings on real projects a bug (`python benchmarks/lint_precision_report.py`).
    """

    code = "MLD060"
    name = "log-of-softmax"
    category = "numerics"
    severity = "info"
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
        activation = logged_activation(node, ctx)
        if activation is not None and not log_without_gradient(node, ctx):
            yield Hit(node, self.message.format(activation=activation, stable=STABLE[activation]))
