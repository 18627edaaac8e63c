import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.graph import held_name
from ..rule import Hit, Rule

# torch's dropout modules and functions, and the layers that take a dropout rate as `dropout=`
DROPOUT_MODULES = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"}
DROPOUT_FUNCTIONS = {"dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"}
RATE_LAYERS = {"LSTM", "GRU", "RNN", "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
               "Transformer"}
KEEP_WORD = re.compile(r"keep", re.IGNORECASE)


class DropoutGivenKeepProbability(Rule):
    """What it does: flags a torch dropout rate (`nn.Dropout(p)`, `F.dropout(x, p)`, `nn.LSTM(..., dropout=p)`,
    attention and transformer layers' `dropout=`) given a value whose name says it is a keep probability
    (`keep_prob`, `dropout_keep`, `config.keep_rate`), the convention of TensorFlow 1's `tf.nn.dropout`. A name
    that is computed into a drop rate (`1 - keep_prob`) is not a bare name and stays quiet.

    Why is this bad: torch's argument is the probability of zeroing a unit. A keep probability of 0.8 passed
    there drops 80% of the activations instead of 20%, and scales the survivors by 5 instead of 1.25. Training
    runs, only worse, and evaluation (where dropout is off) looks unlike training.
    """

    code = "MLD024"
    name = "dropout-given-keep-probability"
    category = "modes"
    severity = "warning"
    message = "`{value}` reads as a keep probability, but torch's dropout takes the probability of dropping a unit"
    why = "torch zeroes each unit with probability p: a keep probability of 0.8 drops 80% of them, not 20%."
    fix = "Pass the drop rate: nn.Dropout(p=1 - keep_prob), or rename the setting to a drop rate."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    call_names = frozenset(DROPOUT_MODULES | DROPOUT_FUNCTIONS | RATE_LAYERS)
    requires_text = ("keep", "Keep")
    BAD = (
        "import torch.nn as nn\n"
        "class TextRNN(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        super().__init__()\n"
        "        self.dropout = nn.Dropout(config.dropout_keep)\n"
    )
    GOOD = BAD.replace("nn.Dropout(config.dropout_keep)", "nn.Dropout(1 - config.dropout_keep)")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        name = ctx.call_name(node) or ""
        if not name.startswith("torch.nn."):
            return
        short = name.rsplit(".", 1)[-1]
        keywords = {k.arg: k.value for k in node.keywords}
        if short in DROPOUT_MODULES:
            rate = keywords.get("p", node.args[0] if node.args else None)
        elif short in DROPOUT_FUNCTIONS:
            rate = keywords.get("p", node.args[1] if len(node.args) > 1 else None)
        else:
            rate = keywords.get("dropout")
        shown = _keep_name(rate)
        if shown is not None:
            yield Hit(rate, self.message.format(value=shown))


def _keep_name(rate: ast.expr | None) -> str | None:
    """The rate as written when it is a bare name, attribute or string-keyed entry whose name says keep."""
    if not isinstance(rate, ast.Name | ast.Attribute | ast.Subscript):
        return None
    return ast.unparse(rate) if KEEP_WORD.search(held_name(rate)) else None
