"""A loss handed by one file to the constructor or function of another that computes it (MLD001): TorchSeg's
`Network(num_classes, criterion=nn.CrossEntropyLoss(...))` whose forward calls `self.criterion(pred, label)`,
an engine's `train(model, loader, loss_fn=nn.BCEWithLogitsLoss())` whose model is built there. The caller's
file tells `lossfor:@Network.criterion` (and `lossfor:@Network#1`, by position) -> the loss's qualified name;
the callee's file reads it for the parameter that no call of its own fills (losses.logit_loss)."""

from __future__ import annotations

import ast

from .kinds.handoffs import SLOT, handed_calls, slot_names
from .kinds.parameters import call_sites

LOSS_FOR = "lossfor:"
DISAGREE = "?"  # calls of this file hand different losses to the same slot: none is known


def handed_loss_facts(ctx) -> dict[str, str]:
    """`lossfor:<slot>` -> the torch loss this file's calls hand to that slot of another file's definition."""
    told: dict[str, str] = {}
    for owner, given in handed_calls(ctx):
        for slot, value in given:
            if not isinstance(value, ast.Name | ast.Call | ast.Attribute):
                continue
            loss = _torch_loss(value, ctx)
            if loss is not None:
                key = f"{LOSS_FOR}{SLOT}{owner}{slot}"
                told[key] = loss if told.get(key, loss) == loss else DISAGREE
    return told


def handed_by_caller(call: ast.Call, ctx) -> str | None:
    """The loss `self.criterion(...)` (or `criterion(...)`) computes when the parameter it was handed in by is
    filled by no call of this file and the other files of the run hand it the same torch loss."""
    if ctx.project is None:
        return None
    callee = call.func
    if isinstance(callee, ast.Attribute) and callee.attr == "forward":
        callee = callee.value
    if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self":
        kept = ctx.values_of(callee)  # self.criterion = criterion, in __init__
        callee = kept[0] if len(kept) == 1 else None
    if not isinstance(callee, ast.Name) or call_sites(callee, ctx, reassigned=True):
        return None
    found = {ctx.project.kind_returned_by(LOSS_FOR + slot) for slot in slot_names(callee, ctx)} - {None}
    return found.pop() if len(found) == 1 and DISAGREE not in found else None


def _torch_loss(value: ast.AST, ctx) -> str | None:
    """The torch loss a value handed over is: `nn.CrossEntropyLoss(...)` (maybe `.to(device)`), a name bound to
    one, or `F.cross_entropy` itself; cheap on purpose (every argument of every call of the file is asked)."""
    value = ctx.resolve(value)
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("to", "cuda"):
        value = value.func.value
    name = ctx.call_name(value) if isinstance(value, ast.Call) else ctx.qualname(value)
    return name if name is not None and name.startswith("torch.nn") and _a_loss(name) else None


def _a_loss(name: str) -> bool:
    short = name.rsplit(".", 1)[-1]
    return short.endswith("Loss") or short.startswith(("cross_entropy", "binary_cross_entropy", "nll_loss"))
