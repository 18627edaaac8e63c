"""A recurrent layer built without batch_first, whose output is read as if it were (MLD040).

`nn.LSTM/GRU/RNN` take and return (seq, batch, features) unless built with `batch_first=True`. A step that
indexes the output's axis 1 as time (`out[:, -1]`, "the last step") reads the last sample of the batch at
every step instead: either the data fed in is batch-first (the layer needs batch_first=True) or the index is
on the wrong axis. Both run without an error, the shapes usually fit, and the model trains on scrambled data.
The Transformer layers (nn.TransformerEncoderLayer, nn.MultiheadAttention, nn.Transformer, and an
nn.TransformerEncoder/Decoder stacking such a layer) share the convention: without batch_first, self-attention
mixes the samples of the batch instead of the positions of one sample.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .tensors_layout import named_layout

RECURRENT = {"torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN"}
# where batch_first sits among the positional arguments: LSTM(input_size, hidden_size, num_layers, bias, batch_first)
BATCH_FIRST_POSITION = {**dict.fromkeys(RECURRENT, 4), "torch.nn.TransformerEncoderLayer": 6,
                        "torch.nn.TransformerDecoderLayer": 6, "torch.nn.MultiheadAttention": 8,
                        "torch.nn.Transformer": 10}
# a stack takes its layout from the layer it is handed (its first argument)
STACKS = {"torch.nn.TransformerEncoder": "encoder_layer", "torch.nn.TransformerDecoder": "decoder_layer"}
# the layers that return (output, state) or (output, weights) rather than the output itself
RETURNS_TUPLE = RECURRENT | {"torch.nn.MultiheadAttention"}
REORDERS = {"transpose", "permute", "movedim", "swapaxes", "swapdims", "t"}
BATCH_NAMES = {"b", "bs", "bsz", "nb", "n_batch"}  # or any name with "batch" in it


def last_step_of_seq_first(ctx) -> Iterator[tuple[ast.AST, ast.Subscript, ast.Call, bool]]:
    """(where the fix goes, the subscript, the layer's construction, whether the input was reordered first) for
    each `out[:, -1]` read straight from a seq-first layer's output (`out, (h, c) = self.lstm(x)`)."""
    for cls in ctx.classes.values():
        layers = _seq_first_layers(cls, ctx)
        if not layers:
            continue
        for assign in ctx.within(ast.Assign, cls):
            call, name = _output_of(assign, layers, ctx)
            if call is None:
                continue
            reordered = _reordered(call.args[0], assign, ctx) if call.args else False
            for read in _last_steps(name, assign, ctx):
                built = layers[call.func.attr]
                yield (read if reordered else built), read, built, reordered


def _seq_first_layers(cls: ast.ClassDef, ctx) -> dict[str, ast.Call]:
    """`self.<attr>` -> its nn.LSTM/GRU/RNN(...) construction, for those built without batch_first=True."""
    found = {}
    for attr, values in ctx.class_attrs.get(cls.name, {}).items():
        if len(values) != 1 or not isinstance(values[0], ast.Call):
            continue
        built = _layer_of(values[0], ctx)
        if built is not None and _seq_first(built, ctx):
            found[attr] = built
    return found


def _layer_of(built: ast.Call, ctx) -> ast.Call | None:
    """The construction that decides the layout: the layer itself, or the layer a Transformer stack is handed
    (`nn.TransformerEncoder(layer, n)` with `layer = nn.TransformerEncoderLayer(...)` just above)."""
    name = ctx.call_name(built)
    if name in BATCH_FIRST_POSITION:
        return built
    if name not in STACKS:
        return None
    layer = built.args[0] if built.args else next((k.value for k in built.keywords if k.arg == STACKS[name]), None)
    if isinstance(layer, ast.Name):
        values = [v for v in ctx.values_of(layer, at=built) if getattr(v, "lineno", 0) < built.lineno]
        layer = values[-1] if len(values) == 1 else None
    return layer if isinstance(layer, ast.Call) and ctx.call_name(layer) in BATCH_FIRST_POSITION else None


def _seq_first(built: ast.Call, ctx) -> bool:
    """Built without batch_first=True (and without **kwargs or a positional batch_first, which could set it)."""
    flag = next((k.value for k in built.keywords if k.arg == "batch_first"), None)
    if any(k.arg is None for k in built.keywords) or len(built.args) > BATCH_FIRST_POSITION[ctx.call_name(built)]:
        return False
    return flag is None or isinstance(flag, ast.Constant) and flag.value is False


def _output_of(assign: ast.Assign, layers: dict[str, ast.Call], ctx) -> tuple[ast.Call | None, str]:
    """`out, _ = self.lstm(x)` / `out = self.gru(x)[0]`: the layer call and the name holding its output."""
    target, value = assign.targets[-1], assign.value
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        name = target.elts[0].id
    elif isinstance(target, ast.Name) and isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
            and value.slice.value == 0:
        name, value = target.id, value.value
    elif isinstance(target, ast.Name) and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in layers \
            and ctx.call_name(layers[value.func.attr]) not in RETURNS_TUPLE:
        name = target.id  # a Transformer layer returns the tensor itself: `out = self.encoder(x)`
    else:
        return None, ""
    ok = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in layers \
        and isinstance(value.func.value, ast.Name) and value.func.value.id == "self"
    return (value, name) if ok else (None, "")


def _last_steps(name: str, assign: ast.Assign, ctx) -> Iterator[ast.Subscript]:
    """`name[:, -1]` / `name[:, -1, :]` in the same function after `assign`, before `name` is bound again."""
    func = ctx.enclosing(assign, (ast.FunctionDef, ast.AsyncFunctionDef))
    if func is None:
        return
    rebound = min((n.lineno for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name
                   and isinstance(n.ctx, ast.Store) and n.lineno > assign.lineno), default=10**9)
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and assign.end_lineno < node.lineno < rebound and _time_index(node.slice):
            yield node


def _time_index(index: ast.expr) -> bool:
    """`[:, -1]`, `[:, -1, :]`: every batch row, the last position of axis 1."""
    if not isinstance(index, ast.Tuple) or len(index.elts) < 2:
        return False
    first, second = index.elts[0], index.elts[1]
    whole = isinstance(first, ast.Slice) and first.lower is None and first.upper is None and first.step is None
    last = isinstance(second, ast.UnaryOp) and isinstance(second.op, ast.USub) \
        and isinstance(second.operand, ast.Constant) and second.operand.value == 1
    return whole and last


def _reordered(given: ast.expr, at: ast.AST, ctx) -> bool:
    """The input was transposed or permuted on its way in (`self.lstm(x.transpose(0, 1))`, or a name holding one)."""
    if isinstance(given, ast.Name):
        values = [v for v in ctx.values_of(given, at=at) if getattr(v, "lineno", 0) < at.lineno]
        given = values[0] if values else given
    return any(isinstance(n, ast.Attribute) and n.attr in REORDERS for n in ast.walk(given))


def batch_first_inputs(ctx, unpacks) -> Iterator[tuple[ast.Call, ast.Call, list[ast.expr]]]:
    """(the construction, the call, the input's named axes) for a seq-first layer handed data whose first axis the
    code itself names as the batch (`B, T, C = x.shape`, then `self.lstm(x)`, maybe through an embedding)."""
    for cls in ctx.classes.values():
        layers = _seq_first_layers(cls, ctx)
        for call in ctx.within(ast.Call, cls) if layers else ():
            func = call.func
            if not (isinstance(func, ast.Attribute) and func.attr in layers and isinstance(func.value, ast.Name)
                    and func.value.id == "self" and call.args):
                continue
            layout = named_layout(call.args[0], call, ctx, unpacks)
            if layout and len(layout) >= 3 and batch_name(layout[0]) and not batch_name(layout[1]):
                yield layers[func.attr], call, layout


def batch_name(size: ast.expr) -> bool:
    """A size whose name says it is the batch size (`B`, `bsz`, `batch_size`)."""
    name = size.id.lower() if isinstance(size, ast.Name) else ""
    return name in BATCH_NAMES or "batch" in name
