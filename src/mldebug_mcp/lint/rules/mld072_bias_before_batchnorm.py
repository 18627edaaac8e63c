import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..rule import Hit, Rule

SEQUENTIAL = {"torch.nn.Sequential", "torch.nn.modules.container.Sequential"}
ORDERED_DICT = {"collections.OrderedDict", "OrderedDict"}
# layer -> index of `bias` when passed positionally (Lazy variants have no in_features/in_channels)
BIAS_POSITION = {"Linear": 2, "LazyLinear": 1}
BIAS_POSITION |= {f"{kind}{d}d": 7 for kind in ("Conv", "ConvTranspose") for d in (1, 2, 3)}
BIAS_POSITION |= {f"Lazy{kind}{d}d": 6 for kind in ("Conv", "ConvTranspose") for d in (1, 2, 3)}
BATCHNORMS = {f"{lazy}BatchNorm{d}d" for lazy in ("", "Lazy") for d in (1, 2, 3)} | {"SyncBatchNorm"}


def _layer(expr: ast.AST, ctx: ModuleContext) -> str | None:
    """'Conv2d' for `nn.Conv2d(...)` (any torch.nn alias), else None."""
    name = ctx.call_name(expr) or ""
    return name.rsplit(".", 1)[-1] if name.startswith("torch.nn.") else None


def _has_bias(call: ast.Call, layer: str) -> bool:
    """True only when the bias is surely on: not bias=False, not bias=<variable>, no **kwargs."""
    given = [k.value for k in call.keywords if k.arg in ("bias", None)]
    position = BIAS_POSITION[layer]
    if len(call.args) > position:
        given.append(call.args[position])
    if any(isinstance(a, ast.Starred) for a in call.args):
        return False
    return all(isinstance(v, ast.Constant) and v.value is True for v in given)


def _modules(call: ast.Call, ctx: ModuleContext) -> list[ast.AST]:
    """The modules of nn.Sequential(a, b), nn.Sequential(*[a, b]) or nn.Sequential(OrderedDict([("a", a), ...]))."""
    modules: list[ast.AST] = []
    for arg in call.args:
        if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.List | ast.Tuple):
            modules += arg.value.elts
        elif ctx.call_name(arg) in ORDERED_DICT and arg.args and isinstance(arg.args[0], ast.List | ast.Tuple):
            modules += [p.elts[1] for p in arg.args[0].elts if isinstance(p, ast.Tuple) and len(p.elts) == 2]
        else:
            modules.append(arg)  # anything else (a name, *layers) breaks adjacency: never paired
    return modules


class BiasBeforeBatchNorm(Rule):
    """What it does: flags an nn.Linear, nn.ConvNd or nn.ConvTransposeNd with its bias on that is
    immediately followed by a BatchNorm layer in an nn.Sequential.

    Why is this bad: BatchNorm subtracts the per-channel mean, so a constant added just before
    it is removed again. The bias never changes the output: it is a wasted parameter that still
    takes weight decay and shows a near-zero gradient in gradient-flow checks.
    """

    code = "MLD072"
    name = "bias-before-batchnorm"
    category = "hygiene"
    severity = "info"
    message = "{layer} bias is cancelled by the {norm} that follows it"
    why = "BatchNorm subtracts the per-channel mean, so a bias right before it has no effect on the output."
    fix = "Pass bias=False to the Linear/Conv layer that feeds a BatchNorm; the BatchNorm's own shift replaces it."
    evidence = "karpathy-mistakes"
    node_types = (ast.Call,)
    requires_text = ('BatchNorm',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch.nn as nn\n"
        "block = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU())\n"
    )
    GOOD = (
        "import torch.nn as nn\n"
        "block = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU())\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.call_name(node) not in SEQUENTIAL:
            return
        modules = _modules(node, ctx)
        for layer_call, next_call in zip(modules, modules[1:], strict=False):
            layer, norm = _layer(layer_call, ctx), _layer(next_call, ctx)
            if layer in BIAS_POSITION and norm in BATCHNORMS and _has_bias(layer_call, layer):
                yield Hit(layer_call, self.message.format(layer=layer, norm=norm))
