import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.evaluation import strip_calls
from ..helpers.kinds import kind_of
from ..helpers.tensors_channels import (
    SAME_LAYOUT_METHODS,
    channels_viewed_last,
    conv_channel_sizes,
    features_last_size,
    short_size,
    spanning_conv_channels,
)
from ..helpers.tensors_conv_window import one_window_conv
from ..helpers.tensors_flattened_rows import splits_flattened_rows
from ..helpers.tensors_layout import distinct, layer_layout, reordered_layout, reordered_on_the_way
from ..helpers.tensors_named_sizes import (
    axis_stranded,
    inverted_named_dims,
    named_axes,
    named_sizes,
    rows_behind_inner_axis,
)
from ..helpers.tensors_one_element import row_of_one_element
from ..helpers.tensors_recurrent import (
    batch_first_inputs,
    batch_name,
    last_step_of_seq_first,
)
from ..helpers.tensors_shape import (
    axis_behind_rest,
    batch_axis_of,
    constructed_shape,
    dim_index,
    inverted_dims,
    leading_shape,
    moves_axes,
    shape_unpack,
)
from ..rule import Hit, Rule

RESHAPES = {"view", "reshape"}
# any of these earlier in the same expression means the axes were already reordered
REORDERS = {"transpose", "permute", "movedim", "moveaxis", "swapaxes", "swapdims", "t", "T", "mT", "mH", "H"}
# names of the layers with a batch_first convention (recurrent and Transformer ones), looked for by finish()
LAYER_TEXTS = ("LSTM", "GRU", "RNN", "Transformer", "MultiheadAttention")
SPLIT_HEADS = (".{method}() merges the batch axis with a factor of the last axis (the heads) without moving "
               "the axes between: each 'head' then holds a run of positions with every head's features, not "
               "one head's features at every position")

CHANNELS_LAST = (".{method}() puts a conv output's channels (or a factor of them) in the last axis, but a conv "
                 "stores them on axis 1 (batch, channels, height, width): permute to channels-last before the view")

REORDERED = (".{method}() names the sizes in an order the permuted/transposed tensor does not have: it regroups "
             "memory across the wrong axes; permute to the order the sizes list first")
FEATURES_FIRST = (".{method}() lists a Linear/Embedding output's feature size (its last axis) before one of its "
                  "earlier axes: the view reads neighbouring features as positions; transpose instead")

THROUGH_LAYER = (".{method}() lists sizes in an order the {layer} output does not have (its axes: {axes}): it regroups "
                 "memory across the wrong axes; transpose/permute to that order first")

SEQ_FIRST_BUILT = ("{layer} is built without batch_first, so its output is (seq, batch, features), but line {line} "
                   "reads {read} as the last time step: that is the batch's last sample at every step; build it with "
                   "batch_first=True for batch-first data")
SEQ_FIRST_FED = ("{layer} is built without batch_first, so it reads axis 0 as time, but line {line} hands it data "
                 "whose axes are ({axes}): it runs along the batch; build it with batch_first=True")
SEQ_FIRST_READ = ("{read} indexes axis 1 of a seq-first {layer} output (seq, batch, features) as time: it picks the "
                  "batch's last sample at every step; the last step is out[-1] (or transpose first)")

STRANDED = (".{method}() keeps {size} as an axis of its own but nothing after it holds the conv output's axes that "
            "follow it: the axes before it absorb them and {size} no longer indexes the same axis; move it with "
            "transpose/permute before the view")


class ViewAsTranspose(Rule):
    """What it does: flags `.view(...)`/`.reshape(...)` whose sizes are the tensor's own dimensions
    in a different order: `x.view(x.size(1), x.size(0))`, `B, T, C = x.shape` then
    `x.view(B, C, T)`, sizes read into names one by one (`c = x.size(1)`, `p = x.shape[2] * x.shape[3]`,
    then `x.view(b, p, c)`), or heads stacked first (`heads = torch.zeros(H, B, L, D)`) then
    `heads.view(B, L, -1)`; and splitting heads by merging the batch axis of a projection's output
    with the heads (`q = self.W_q(x)` then `q.view(q.size(0) * n_heads, -1, d)`), which only works
    after moving the heads next to the batch axis; and a conv's channels-first output (a Conv module, a
    Sequential or ModuleList head ending in one, through activations and norms) viewed with its channel
    count or a factor of it last (`self.cls(x).view(B, -1, num_classes)` for `num_anchors * num_classes`
    channels), or a conv output's axis kept by its size with only 1s after it
    (`h = x.size(2)`; `x.view(b, -1, h, 1)` on (b, c, h, w)); a Linear or Embedding output viewed with its
    feature size before one of its earlier axes (`x = self.char_emb(x)`, `x.view(-1, char_dim, x.size(2))`),
    also a part of one cut along its last axis (`q, k, v = self.qkv(x).chunk(3, dim=-1)`);
    and a permute or transpose whose order the following view's sizes contradict (`B, C, H, W = x.shape`,
    an Embedding appends an axis, `x.permute(0, 1, 3, 2, 4).reshape(B, C * D, H, W)`; found at the
    permute). Also heads split by `view(B, T, H, D)` and a transpose, weighted by `attention @ v` (also in a
    function of the same file that returns it), then merged by `view(B, T, C)` without the transpose back
    (found at the merge). Merges and splits of neighbouring axes
    (`x.view(B * T, C)`, `x.view(B, T, H, C // H)`, torch's `q.view(L, B * H, d)`) and reshapes of
    a transposed or permuted tensor that follow its new order are not flagged; nor is a view that cuts the
    leading axis back where an earlier view of the function joined it (`x.view(bsz * tsz * groups, -1)`, later
    `x.view(bsz * tsz, groups, -1)`; `B, D, N, L = x.size()`, `x.view(-1, L)`, layers, then `x.view(B * D, N, h)`),
    the output of a conv that is not torch's (speechbrain's `sb.nnet.CNN.Conv1d` stores channels last; a conv class
    of another file is not known), a conv run on one window of its kernel (input viewed or adaptively pooled to the
    kernel's size just before: its output is (N, C, 1, 1)), and a two-axis swap whose row is read as one number
    (`labels.append(t.reshape(t.shape[1], t.shape[0])[0])`, then `torch.tensor(labels)`: the swapped axis is 1).
    Also a recurrent or
    Transformer layer (LSTM, GRU, TransformerEncoderLayer, MultiheadAttention, a TransformerEncoder stacking
    one) built without batch_first, whose output is read as `out[:, -1]` or which is handed data whose
    first axis the code names as the batch (`B, N, D = x.shape`).

    Why is this bad: view and reshape keep the memory order and only relabel the shape, so the
    result has the intended shape but its elements are scrambled across positions or samples.
    Nothing errors, and a network usually still trains by learning to ignore the mixed-in data.
    """

    code = "MLD040"
    name = "view-as-transpose"
    category = "shapes"
    severity = "error"
    message = ".{method}() lists the tensor's own dimensions in a new order: it reinterprets memory, not a transpose"
    why = "view/reshape keep memory order, so the shape looks right but values are mixed across positions or samples."
    fix = "Swap axes with .transpose(i, j) or .permute(...); add .contiguous() if a later .view needs it."
    evidence = "karpathy-recipe/backprop-to-chart-dependencies"
    node_types = (ast.Call,)
    call_names = frozenset(RESHAPES)  # x.view(...), x.reshape(...), torch.reshape(x, ...)
    requires_text = ("view", "reshape", *LAYER_TEXTS)  # skip modules that cannot contain the pattern
    BAD = "def to_channels_first(x):\n    B, T, C = x.shape\n    return x.view(B, C, T)\n"
    GOOD = "def to_channels_first(x):\n    B, T, C = x.shape\n    return x.transpose(1, 2)\n"

    def __init__(self) -> None:
        self._ctx: ModuleContext | None = None
        self._unpacks: list[tuple[ast.Assign, list[str], str]] = []

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node.func, ast.Attribute) and node.func.attr in RESHAPES and ctx.call_name(node) is None:
            tensor, sizes, method = node.func.value, _sizes(node.args, node.keywords), node.func.attr
        elif ctx.call_name(node) == "torch.reshape" and len(node.args) == 2:
            tensor, sizes, method = node.args[0], _sizes(node.args[1:], []), "reshape"
        else:
            return
        if not sizes:
            return
        if _reordered_before(tensor):
            yield from self._misordered(node, tensor, sizes, method, ctx)
            return
        tensor = strip_calls(tensor, SAME_LAYOUT_METHODS)  # a view of x.contiguous() has x's shape
        swapped = inverted_dims(tensor, sizes) and not row_of_one_element(node, sizes, ctx)
        if swapped or axis_behind_rest(tensor, named_sizes(node, tensor, sizes, ctx)) \
                or self._moved_axes(node, tensor, sizes, ctx) or inverted_named_dims(node, tensor, sizes, ctx) \
                or rows_behind_inner_axis(node, tensor, sizes, ctx):
            yield Hit(node, self.message.format(method=method))
        elif (made := layer_layout(tensor, node, ctx, self._unpacks_of(ctx))) is not None and moves_axes(made[0], sizes):
            axes = ", ".join(ast.unparse(a) for a in made[0])
            yield Hit(node, THROUGH_LAYER.format(method=method, layer=made[1], axes=axes))
        elif made is None and _heads_merged_into_batch(tensor, sizes, ctx) \
                and not splits_flattened_rows(node, tensor, sizes, ctx):  # a known layout merged in order is fine
            yield Hit(node, SPLIT_HEADS.format(method=method))
        elif _reordered_earlier(tensor, ctx):
            misordered = list(self._misordered(node, tensor, sizes, method, ctx))
            yield from misordered or self._merged_unordered(node, tensor, sizes, method, ctx)
        elif merged := list(self._merged_unordered(node, tensor, sizes, method, ctx)):
            yield from merged
        elif len(sizes) >= 2:  # a conv output's axes, as built
            if _channels_last_of_conv(node, tensor, sizes, ctx):
                yield Hit(node, CHANNELS_LAST.format(method=method))
            elif _features_moved_forward(node, tensor, sizes, ctx, self._unpacks_of(ctx)):
                yield Hit(node, FEATURES_FIRST.format(method=method))
            elif (stranded := axis_stranded(node, tensor, sizes, ctx)) is not None:
                yield Hit(node, STRANDED.format(method=method, size=ast.unparse(stranded)))

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        """A recurrent or Transformer layer built without batch_first whose output a step reads as `out[:, -1]`, or
        which is handed data whose first axis the code names as the batch."""
        if not any(map(ctx.has_text, LAYER_TEXTS)):
            return
        reported = set()
        for where, read, built, reordered in last_step_of_seq_first(ctx):
            layer = (ctx.call_name(built) or "").rsplit(".", 1)[-1]
            text = SEQ_FIRST_READ if reordered else SEQ_FIRST_BUILT
            reported.add(where)
            yield Hit(where, text.format(layer=layer, line=read.lineno, read=ast.unparse(read)))
        for built, call, layout in batch_first_inputs(ctx, self._unpacks_of(ctx)):
            if built not in reported:
                reported.add(built)
                layer = (ctx.call_name(built) or "").rsplit(".", 1)[-1]
                axes = ", ".join(ast.unparse(a) for a in layout)
                yield Hit(built, SEQ_FIRST_FED.format(layer=layer, line=call.lineno, axes=axes))

    def _misordered(self, call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], method: str,
                    ctx: ModuleContext) -> Iterator[Hit]:
        """A permute or transpose first, and sizes that do not follow its order (`permute(0, 1, 3, 2, 4)` then
        `reshape(B, C * D, H, W)` puts width positions where rows go): found at the permute, where the fix goes."""
        found = reordered_layout(tensor, call, ctx, self._unpacks_of(ctx))
        if found is not None and distinct(found[0]) and distinct(sizes) and moves_axes(found[0], sizes):
            yield Hit(found[1], REORDERED.format(method=method))

    def _merged_unordered(self, call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], method: str,
                          ctx: ModuleContext) -> Iterator[Hit]:
        """Heads split and transposed, weighted by `attention @ v` (maybe in a helper of this file), then merged
        by `view(B, T, C)` without the transpose back: found at the merge."""
        moved = reordered_on_the_way(tensor, call, ctx, self._unpacks_of(ctx))
        if moved is not None and distinct(sizes) and moves_axes(moved, sizes):
            yield Hit(call, REORDERED.format(method=method))

    def _moved_axes(self, call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext) -> bool:
        """The sizes name the tensor's axes (from `B, T, C = x.shape` or `x = torch.zeros(H, B, T, D)`) out of order."""
        shape = self._shape_at(call, tensor, ctx)
        return shape is not None and moves_axes(shape, sizes)

    def _shape_at(self, call: ast.Call, tensor: ast.expr, ctx: ModuleContext) -> list[ast.expr] | None:
        scope, source = ctx.scope_of(call), ast.dump(tensor)
        # the latest `B, T, C = x.shape` before this call, in the same scope, on the same tensor
        candidates = [(a.lineno, a.targets[-1].elts) for a, _, s in self._unpacks_of(ctx)
                      if s == source and a.lineno < call.lineno and ctx.scope_of(a) is scope]
        values = ctx.values_of(tensor, at=call) if isinstance(tensor, ast.Name) else []
        latest = max((v for v in values if getattr(v, "lineno", 0) < call.lineno), key=lambda v: v.lineno,
                     default=None)
        built = _built_shape(latest, ctx) if latest is not None else None
        if built is not None and ctx.scope_of(latest) is scope:
            candidates.append((latest.lineno, built))
        if not candidates:
            return None
        line, shape = max(candidates, key=lambda c: c[0])
        # the tensor reassigned in between (x = x.transpose(1, 2)) may already have the new shape,
        # unless the new value is elementwise on the old one (x = x.float() / 255)
        name = tensor.id if isinstance(tensor, ast.Name) else None
        if any(line < getattr(v, "lineno", 0) < call.lineno and not _keeps_shape(v, name) for v in values):
            return None
        return shape

    def _unpacks_of(self, ctx: ModuleContext) -> list[tuple[ast.Assign, list[str], str]]:
        if self._ctx is not ctx:  # built once per module from the index, not by walking
            found = ((a, shape_unpack(a)) for a in ctx.by_type.get(ast.Assign, ()))
            self._ctx, self._unpacks = ctx, [(a, *u) for a, u in found if u]
        return self._unpacks


def _keeps_shape(value: ast.expr, name: str | None) -> bool:
    """`x.float() / 255.0`, `x.to(device)`, `x * scale + shift`: the value is `name` with the same shape."""
    if name is None:
        return False
    if isinstance(value, ast.BinOp) and not isinstance(value.op, ast.MatMult):
        sides = (value.left, value.right)
        own = [s for s in sides if _keeps_shape(s, name)]
        return len(own) >= 1 and all(s in own or isinstance(s, ast.Constant | ast.Attribute) or
                                     isinstance(s, ast.Name) and s.id != name for s in sides)
    if isinstance(value, ast.UnaryOp):
        return _keeps_shape(value.operand, name)
    value = strip_calls(value, SAME_LAYOUT_METHODS)
    return isinstance(value, ast.Name) and value.id == name


def _built_shape(value: ast.expr, ctx: ModuleContext) -> list[ast.expr] | None:
    """The shape a constructor gives (`torch.rand(512, 32, 32, 3)`), or the first axis of a module's output
    on such a tensor (`y = block(x)`: modules keep the first axis)."""
    shape = constructed_shape(value, ctx)
    if shape is not None or not isinstance(value, ast.Call) or not value.args:
        return shape
    built = (ctx.constructed(value.func) or "").rsplit(".", 1)[-1]
    source = value.args[0]
    if not built[:1].isupper() or built.endswith("Loss") or not isinstance(source, ast.Name):
        return None
    earlier = [v for v in ctx.values_of(source, at=value) if v.lineno < value.lineno]
    origin = constructed_shape(earlier[0], ctx) if earlier else None
    return leading_shape(origin[0]) if origin else None


def _channels_last_of_conv(call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext) -> bool:
    """`out = self.cls_head(x)` (a Conv2d with `num_anchors * num_classes` out channels), then
    `out.view(B, -1, num_classes)`: the view reads width positions as classes."""
    channels = conv_channel_sizes(tensor, call, ctx)
    if channels is None or not channels_viewed_last(sizes, channels):
        return False
    # `self.decide(x).view(-1, k)` with k the conv's whole channel count, after a kernel that spans the map:
    # a (batch, k, 1, 1) output flattened per sample, not positions read as channels
    if len(sizes) == 2 and short_size(sizes[-1]) in spanning_conv_channels(tensor, call, ctx):
        return False
    # `self.proj(x.view(-1, c, tp, p, p)).view(-1, d)` with a (tp, p, p) kernel: the output is (N, d, 1, 1, 1)
    return not one_window_conv(tensor, call, ctx)


def _features_moved_forward(call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext,
                            unpacks: list) -> bool:
    """`x = self.char_emb(x)` (an Embedding to `char_dim`: x is (B, T, W, char_dim)), then
    `x.view(-1, char_dim, x.size(2))`, or `B, T = tokens.shape` then `self.embed(tokens).view(B, D, T)`: the
    features axis, stored last, is listed before an earlier axis."""
    found = features_last_size(tensor, call, ctx)
    if found is None:
        return False
    features, given, appended = found
    position = next((i for i, s in enumerate(sizes) if short_size(s) in features), None)
    if position is None:
        return False
    source, scope = ast.dump(tensor), ctx.scope_of(call)
    # the input's axes carry over (all of them for an Embedding, all but the last for a Linear)
    carried = {name for a, names, s in unpacks if s == ast.dump(given) and a.lineno < call.lineno
               and ctx.scope_of(a) is scope for name in (names if appended else names[:-1])}
    return any((axes := named_axes(s, source, call, ctx)) and min(axes) >= 0
               or isinstance(s, ast.Name) and s.id in carried for s in sizes[position + 1:])


def _heads_merged_into_batch(tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext) -> bool:
    """`q.view(q.size(0) * heads, -1, d)` on a Linear layer's output `q` (batch, length, heads * d): the
    heads factor lives in the last axis, so merging it with the batch axis needs the length axis moved."""
    first = sizes[0]
    if len(sizes) < 3 or not (isinstance(first, ast.BinOp) and isinstance(first.op, ast.Mult)):
        return False
    if not any(_is_batch_size(f, ctx) for f in (first.left, first.right)):
        return False
    if any(dim_index(f, ast.dump(tensor)) == 1 for f in (first.left, first.right)):
        return False  # `x.shape[0] * x.shape[1]`: the batch axis merged with its neighbour, not with the heads
    return kind_of(tensor, ctx) == "logits" and not _reordered_earlier(tensor, ctx)


def _is_batch_size(size: ast.expr, ctx: ModuleContext) -> bool:
    """`x.size(0)`, `x.shape[0]` (or a name holding one), or a name that says it is the batch size."""
    if batch_axis_of(size, ctx) is not None:
        return True
    return batch_name(size)


def _reordered_earlier(tensor: ast.expr, ctx: ModuleContext, depth: int = 4) -> bool:
    """The value behind `tensor` was transposed or permuted on its way here (`q = q.view(...).transpose(1, 2)`)."""
    current = tensor
    for _ in range(depth):
        if not isinstance(current, ast.Name):
            return False
        values = [v for v in ctx.values_of(current, at=current) if v.lineno < current.lineno]
        if not values:
            return False
        if _reordered_before(values[0]):
            return True
        current = values[0]
        while isinstance(current, ast.Call) and isinstance(current.func, ast.Attribute):
            current = current.func.value  # x.view(...).contiguous() -> x
    return False


def _sizes(args: list[ast.expr], keywords: list[ast.keyword]) -> list[ast.expr]:
    if not args:
        args = [k.value for k in keywords if k.arg in {"shape", "size"}]
    if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List):
        return list(args[0].elts)
    return [] if any(isinstance(a, ast.Starred) for a in args) else list(args)


def _reordered_before(tensor: ast.expr) -> bool:
    return any(isinstance(node, ast.Attribute) and node.attr in REORDERS for node in ast.walk(tensor))
