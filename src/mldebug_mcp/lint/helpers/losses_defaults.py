"""A signature whose defaults pair an output activation with a loss that applies its own (MLD001):
`def __init__(self, ..., pred_activation=nn.Softmax(dim=1), ..., criter_spec=nn.CrossEntropyLoss())`. Both
are what the class uses unless a caller overrides them, so its default network normalises twice. A softmax
default is read as the output's wherever it stands (no hidden layer uses one); a sigmoid default only under
a name that says it is the output's (`out_activation`, `final_act`): `activation=nn.Sigmoid()` is a hidden one."""

from __future__ import annotations

import ast
import re

from .kinds.vocabulary import LOG_SOFTMAX, MODULES, SIGMOID, SOFTMAX

OUTPUT_NAME = re.compile(r"(?i)(pred|out|final|last|head|classif|logit|prob)")


def _defaults(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, ast.expr]]:
    args = func.args
    positional = args.posonlyargs + args.args
    pairs = list(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults, strict=True))
    pairs += [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return pairs


def paired_defaults(ctx) -> list[tuple[ast.expr, str, str]]:
    """(activation default, its kind, the logit loss) for each signature of this module that pairs them."""
    from .losses import LOGIT_FUNCTIONS, LOGIT_LOSSES

    found = []
    for func in [*ctx.by_type.get(ast.FunctionDef, ()), *ctx.by_type.get(ast.AsyncFunctionDef, ())]:
        defaults = _defaults(func)
        if len(defaults) < 2:
            continue
        losses = []
        activations = []
        for name, value in defaults:
            built = value.func if isinstance(value, ast.Call) else value
            qualified = ctx.qualname(built) if isinstance(built, ast.Name | ast.Attribute) else None
            if qualified in LOGIT_LOSSES or qualified in LOGIT_FUNCTIONS:
                losses.append(qualified)
            elif isinstance(value, ast.Call) and qualified in MODULES:
                kind = MODULES[qualified]
                if kind in (SOFTMAX, LOG_SOFTMAX) or (kind == SIGMOID and OUTPUT_NAME.search(name)):
                    activations.append((value, kind))
        if len(set(losses)) == 1:
            found += [(value, kind, losses[0]) for value, kind in activations]
    return found
