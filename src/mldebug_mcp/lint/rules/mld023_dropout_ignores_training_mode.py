import ast
from collections.abc import Iterable

from ..context import ModuleContext
from ..helpers.modes_dropout import (
    BERNOULLI,
    RANDOM_DRAWS,
    dropped_subset,
    drops_units,
    follows_mode,
    in_forward_pass,
    only_when_training,
    random_mask,
    reads_training,
)
from ..helpers.modes_handed_models import calls_by_ident
from ..rule import Hit, Rule

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)

FUNCTIONAL_DROPOUT = {"torch.nn.functional.dropout", "torch.nn.functional.dropout1d", "torch.nn.functional.dropout2d",
                      "torch.nn.functional.dropout3d", "torch.nn.functional.alpha_dropout",
                      "torch.nn.functional.feature_alpha_dropout"}
ATTENTION = {"torch.nn.functional.scaled_dot_product_attention"}
# fused attention kernels outside torch take the same fixed rate and never look at the module's mode: the
# keyword, and where each takes the rate positionally (flash_attn_func(q, k, v, dropout_p), the varlen forms
# after the sequence lengths; xformers' memory_efficient_attention(q, k, v, attn_bias, p))
KERNEL_RATES = {"flash_attn_func": ("dropout_p", 3), "flash_attn_qkvpacked_func": ("dropout_p", 1),
                "flash_attn_kvpacked_func": ("dropout_p", 2), "flash_attn_varlen_func": ("dropout_p", 7),
                "flash_attn_varlen_qkvpacked_func": ("dropout_p", 3),
                "flash_attn_varlen_kvpacked_func": ("dropout_p", 6), "memory_efficient_attention": ("p", 4)}
KERNEL_LIBRARIES = ("flash_attn", "xformers")
# what a call of an attribute (`F.dropout(x)`, `x.bernoulli_(p)`) must be named to be reported: the last part of
# a qualified name is its attribute (a dropout module built here is called by name, or is a call's result)
CALLED_ATTRIBUTES = ({n.rsplit(".", 1)[-1] for n in (*FUNCTIONAL_DROPOUT, *ATTENTION, *RANDOM_DRAWS)}
                     | BERNOULLI | set(KERNEL_RATES))
DROPOUT_MODULES = {"torch.nn.Dropout", "torch.nn.Dropout1d", "torch.nn.Dropout2d", "torch.nn.Dropout3d",
                   "torch.nn.AlphaDropout", "torch.nn.FeatureAlphaDropout"}


class DropoutIgnoresTrainingMode(Rule):
    """What it does: in a module's forward pass (forward and the methods of its class that forward calls
    outside a training-only branch), flags dropout that does not follow the module's train/eval mode:
    F.dropout(x, p) without `training=self.training` (its default is training=True; writing
    training=True out is taken as deliberate, as in Tacotron's prenet, unless the same class otherwise
    follows the mode: it builds dropout or BatchNorm modules, holds a library backbone such as
    AutoModel.from_pretrained or timm.create_model, or reads self.training), an attention call
    (torch's scaled_dot_product_attention, flash-attn's and xformers' kernels) given `dropout_p=` a fixed rate instead of one that is 0 outside training, an nn.Dropout built there
    and called (a fresh module is always in training mode), and a hand-made dropout mask (`bernoulli_(1 - p)`,
    `torch.rand(shape) < keep_prob`, rescaled by 1/(1-p) or named for a drop rate) drawn without an
    `if self.training` guard, and token dropout (a random subset of positions kept, `randn(n).topk(k)`,
    `randperm(n)[:k]`, in code named for dropping) gated by its rate alone, reported at the gate. Random draws that are not dropout (sampling binary units) stay quiet.

    Why is this bad: model.eval() switches only the submodules it owns. These calls keep dropping units
    at evaluation and inference, so validation scores are noisy and pessimistic, and predictions vary
    from one call to the next, without any error.
    """

    code = "MLD023"
    name = "dropout-ignores-training-mode"
    category = "modes"
    severity = "error"
    message = "dropout here does not follow model.eval(): it keeps dropping units at evaluation and inference"
    why = "model.eval() only switches registered submodules; functional or freshly built dropout stays in training mode."
    fix = ("Pass training=self.training to F.dropout, dropout_p=self.p if self.training else 0.0 to attention, "
           "or register nn.Dropout in __init__ and call self.dropout(x).")
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = (ast.Call, ast.Compare)
    requires_text = ("drop", "Drop", "bernoulli", "keep")
    BAD = (
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return F.dropout(self.fc(x), p=0.1)\n"
    )
    GOOD = (
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return F.dropout(self.fc(x), p=0.1, training=self.training)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterable[Hit]:
        # what the node would be reported for first (cheap, and nothing for almost every call), then whether it
        # runs in the forward pass outside training-only code (a walk up its ancestors); a tuple, not a
        # generator: asked for thousands of calls per run
        hit = _compare_hit(node, ctx) if isinstance(node, ast.Compare) else _call_hit(node, ctx)
        if hit is not None and (in_forward_pass(node, ctx) or _helper_of_forward(node, hit, ctx)) and (
                not only_when_training(node, ctx)):
            return (hit,)
        return ()


def _compare_hit(node: ast.Compare, ctx: ModuleContext) -> Hit | None:
    return Hit(node, MASK) if random_mask(node, ctx) and drops_units(node, ctx) else None


def _call_hit(node: ast.Call, ctx: ModuleContext) -> Hit | None:
    if type(node.func) is ast.Attribute and node.func.attr not in CALLED_ATTRIBUTES:
        return None  # most calls: a method or function that is no dropout
    name = ctx.call_name(node) or ""
    if name in FUNCTIONAL_DROPOUT:
        flag = _keyword(node, "training") or (node.args[2] if len(node.args) > 2 else None)
        if _method_not_flag(flag):
            return Hit(flag, "training=self.train passes the method, which is always true: dropout stays on at "
                             "evaluation and inference; pass training=self.training")
        if flag is None:
            # F.dropout(x, self.p if self.training else 0.0): a rate that is 0 outside training (hyena-dna)
            rate = _keyword(node, "p") or (node.args[1] if len(node.args) > 1 else None)
            return None if rate is not None and _zero_outside_training(rate, ctx) else Hit(node)
        # training=True written out is deliberate (Tacotron's prenet keeps dropout at inference), unless the
        # same class follows the mode elsewhere: it registers dropout or BatchNorm modules (switched by eval())
        # or passes self.training to other dropout, so the constant is a slip
        if isinstance(flag, ast.Constant) and flag.value is True and follows_mode(node, ctx):
            return Hit(flag, "training=True keeps this dropout on at evaluation and inference, while the rest of "
                             "this module follows model.eval(); pass training=self.training")
        return None
    if name in ATTENTION or _kernel(name):
        keyword, index = KERNEL_RATES.get(name.rsplit(".", 1)[-1], ("dropout_p", 4))
        rate = _keyword(node, keyword) or (node.args[index] if len(node.args) > index else None)
        if rate is not None and not _zero_outside_training(rate, ctx):
            return Hit(rate, "attention dropout_p does not depend on self.training: attention weights are "
                             "dropped at evaluation and inference too")
        return None
    if _built_here(node.func, ctx):
        return Hit(node, "nn.Dropout built inside forward is always in training mode: model.eval() never reaches it")
    if random_mask(node, ctx) and drops_units(node, ctx) and not _inside_mask(node, ctx):
        return Hit(node, MASK)
    if name in RANDOM_DRAWS:
        gate = dropped_subset(node, ctx)
        if gate is not None:
            return Hit(gate, "token dropout keeps a random subset of positions whatever the mode: inference drops "
                             "tokens too; draw the subset only when self.training")
    return None


MASK = ("hand-made dropout mask drawn whatever the mode: it keeps dropping units at evaluation and inference; "
        "apply it only under `if self.training:`")


def _built_here(func: ast.AST, ctx: ModuleContext) -> bool:
    """`nn.Dropout(p)(x)`, or `drop = nn.Dropout(p)` in this function and then `drop(x)`."""
    if isinstance(func, ast.Call):
        return ctx.call_name(func) in DROPOUT_MODULES
    if not isinstance(func, ast.Name):
        return False
    values = ctx.values_of(func, func)
    return bool(values) and all(isinstance(v, ast.Call) and ctx.call_name(v) in DROPOUT_MODULES
                                and ctx.scope_of(v) is ctx.scope_of(func) for v in values)


def _inside_mask(call: ast.Call, ctx: ModuleContext) -> bool:
    """`torch.rand(...) < p` is reported once, at the comparison."""
    parent = ctx.parent(call)
    return isinstance(parent, ast.Compare) and random_mask(parent, ctx)


def _helper_of_forward(node: ast.AST, hit: Hit, ctx: ModuleContext) -> bool:
    """A module-level function (`def attention(q, k, v, dropout_p)`) whose dropout rate comes from its
    caller, called from a module's forward pass with a rate that stays on outside training (`self.p`), or
    with a fixed rate of its own: it cannot know the mode, so it drops at inference too."""
    function = ctx.enclosing(node, FUNCS)
    if not isinstance(node, ast.Call) or function is None or ctx.parent(function) is not ctx.tree:
        return False
    name = ctx.call_name(node) or ""
    if not (name in FUNCTIONAL_DROPOUT or name in ATTENTION or _kernel(name)):
        return False  # a hand-made mask (drop_connect(x, rate)) is called under `if self.training` as a rule
    rate = hit.node if hit.node is not node else (_keyword(node, "p") or (node.args[1] if len(node.args) > 1 else None))
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    callers = [c for c in calls_by_ident(ctx).get(function.name, ()) if isinstance(c.func, ast.Name)
               and in_forward_pass(c, ctx) and not only_when_training(c, ctx)]
    if not callers:
        return False
    if not (isinstance(rate, ast.Name) and rate.id in params):
        return not (isinstance(rate, ast.Constant) and not rate.value)  # a fixed rate (or the default 0.5)
    index = params.index(rate.id)
    defaults = dict(zip(params[len(params) - len(function.args.defaults):], function.args.defaults))
    for call in callers:
        given = _keyword(call, rate.id) or (call.args[index] if len(call.args) > index else defaults.get(rate.id))
        if given is not None and not _zero_outside_training(given, ctx):
            return True
    return False


def _kernel(name: str) -> bool:
    """flash_attn.flash_attn_varlen_func, xformers.ops.memory_efficient_attention (however imported)."""
    return name.rsplit(".", 1)[-1] in KERNEL_RATES and name.split(".", 1)[0] in KERNEL_LIBRARIES


def _method_not_flag(flag: ast.expr | None) -> bool:
    """`self.train` (the nn.Module method, never called) where the flag `self.training` was meant."""
    return isinstance(flag, ast.Attribute) and flag.attr == "train" and isinstance(flag.value, ast.Name) and (
        flag.value.id == "self")


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _zero_outside_training(rate: ast.expr, ctx: ModuleContext) -> bool:
    """A literal 0, or an expression that reads `training` (`p if self.training else 0.0`, a variable
    assigned from one); a name or attribute we cannot see through is given the benefit of the doubt
    only when it is assigned from such an expression in the same function."""
    if isinstance(rate, ast.Constant):
        return not rate.value
    if reads_training(rate):
        return True
    if isinstance(rate, ast.Name):
        values = ctx.values_of(rate, rate)
        return bool(values) and all(_zero_outside_training(v, ctx) for v in values)
    return False
