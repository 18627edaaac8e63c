"""A loss picked from a table by a configuration string (MLD001): `self.loss_fn = LOSSES[cfg.loss]()`,
`LOSSES.get(name)`, with `LOSSES = {"mse": nn.MSELoss, "bce": nn.BCEWithLogitsLoss, ...}`. The table may hold
losses of other tasks (a regression loss); what matters is the choice it offers for the activation the loss
is given: when every classification loss there that fits a sigmoid (or a softmax) expects logits, any
configuration that trains the classifier normalises twice."""

from __future__ import annotations

import ast

from .kinds import parameter_default

MODULE_MOVES = {"to", "cuda", "cpu"}  # a loss moved to a device is the same loss


def tabled_losses(call: ast.Call, ctx, source_of) -> set[str] | None:
    """The qualified names of every loss in the table the callee of `call` was picked from (through the name or
    `self.<attr>` holding it, a call of the picked class, `.to(device)`); None when the callee is not picked
    from a table of known losses. `source_of` names the loss one value holds (losses.loss_source)."""
    callee = call.func
    values = ctx.values_of(callee, at=call) if isinstance(callee, ast.Name | ast.Attribute) else [callee]
    if len(values) != 1:
        return None
    table = _table(values[0], ctx)
    if table is None:
        return None
    names = set()
    for entry in table.values:
        source = source_of(entry, ctx)
        if source is None:
            return None
        names.add(source.name)
    return names or None


def _table(value: ast.AST, ctx) -> ast.Dict | None:
    for _ in range(4):
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in MODULE_MOVES:
            value = value.func.value  # LOSSES[name]().to(device)
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get" \
                and value.args:
            value = value.func.value  # LOSSES.get(name): the table itself
            break
        elif isinstance(value, ast.Call):
            value = value.func  # LOSSES[name](): the class picked
        elif isinstance(value, ast.Subscript) and not isinstance(value.slice, ast.Constant):
            value = value.value  # picked by a variable key; a constant key is a single loss
            break
        else:
            return None
    table = ctx.resolve(value) if isinstance(value, ast.Name | ast.Attribute) else value
    if isinstance(table, ast.Dict) and len(table.values) > 1 and None not in table.keys:
        return table
    return None


def configured_loss(call: ast.AST, ctx, wrapped) -> str | None:
    """The logit loss a registry builds from a config dict (`MODELS.build(dict(type="CrossEntropyLoss"))`,
    `build_loss(cfg)` with `cfg={"type": "BCEWithLogitsLoss", ...}`, the dict a parameter's default): the type
    string names torch's loss class, or a loss class of the project built on a logit loss (`wrapped` asks)."""
    if not isinstance(call, ast.Call) or len(call.args) + len(call.keywords) != 1:
        return None
    config = call.args[0] if call.args else call.keywords[0].value
    if isinstance(config, ast.Name):
        config = ctx.resolve(config) if ctx.resolve(config) is not config else parameter_default(config, ctx)
    kind = _type_of(config, ctx)
    if not kind or not kind.endswith("Loss"):
        return None
    from .losses import LOGIT_LOSSES  # losses imports this module

    torch_name = "torch.nn." + kind
    return torch_name if torch_name in LOGIT_LOSSES else wrapped(kind, ctx)


def _type_of(config: ast.AST | None, ctx) -> str | None:
    """`dict(type="X", ...)` or `{"type": "X", ...}` -> "X"."""
    if isinstance(config, ast.Call) and isinstance(config.func, ast.Name) and config.func.id == "dict":
        value = next((k.value for k in config.keywords if k.arg == "type"), None)
    elif isinstance(config, ast.Dict):
        value = next((v for k, v in zip(config.keys, config.values, strict=False)
                      if isinstance(k, ast.Constant) and k.value == "type"), None)
    else:
        return None
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
