import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.tensors_flow import enclosing_forward, is_loss_class, reaches_return
from ..helpers.tensors_graph_nodes import over_graph_nodes
from ..helpers.tensors_index import squeezed_rows_index
from ..helpers.tensors_input_free import from_attributes_only
from ..helpers.tensors_unit_axis import unit_axis_squeeze
from ..rule import Hit, Rule

LOSS_FUNCTIONS = {"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"}
# dtype/device moves keep the shape, so `out.squeeze().float()` is still the squeezed tensor
SHAPE_KEEPING = {"float", "double", "half", "bfloat16", "long", "int", "bool", "to", "type", "contiguous",
                 "cuda", "cpu"}
# squeezing these gives indices or sizes, not values a loss is computed from
INDEX_METHODS = {"nonzero", "argmax", "argmin", "argsort", "size", "numel"}
SIZE_ATTRIBUTES = ("shape", "ndim")  # a tensor's sizes read as attributes, not its values
IN_LOSS = "squeeze() without a dim inside a loss's forward: with a batch of one it also drops the batch axis"
IN_FORWARD = "squeeze() without a dim on what forward returns: with a batch of one the output loses its batch axis"


def is_loss_call(call: ast.Call, ctx: ModuleContext) -> bool:
    """F.mse_loss(...), F.cross_entropy(...), or a call of an object built from a torch.nn *Loss class."""
    name = ctx.call_name(call) or ""
    if name.startswith("torch.nn.functional."):
        short = name.rsplit(".", 1)[-1]
        return short.endswith("_loss") or short in LOSS_FUNCTIONS
    built = ctx.constructed(call.func) or ""
    if not built and _self_attribute(call.func):
        # `self.loss = None` in a base class, `self.loss = nn.CrossEntropyLoss()` in the subclass that fills it in
        built = next((name for v in _values_in_subclasses(call.func, ctx) if isinstance(v, ast.Call)
                      and (name := ctx.call_name(v) or "").endswith("Loss")), "")
    return built.startswith("torch.nn.") and built.endswith("Loss")


def _values_in_subclasses(attribute: ast.Attribute, ctx: ModuleContext) -> list[ast.expr]:
    """What `self.attr` holds in the enclosing class and in the module's classes derived from it."""
    cls = ctx.enclosing_class(attribute)
    if cls is None:
        return []
    values = list(ctx.values_of(attribute))
    for sub in ctx.by_type.get(ast.ClassDef, ()):
        if any(isinstance(b, ast.Name) and b.id == cls.name for b in sub.bases):
            values += ctx.class_attrs.get(sub.name, {}).get(attribute.attr, [])
    return values


def _self_attribute(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"


class SqueezeWithoutDimOnLossPath(Rule):
    """What it does: flags `.squeeze()` / `torch.squeeze(x)` without a dim whose result goes to a
    loss (a torch.nn.functional loss or a torch.nn *Loss object), directly or through one
    assignment (`pred = model(x).squeeze()` then `criterion(pred, y)`); a squeezed value kept in a
    name inside a loss's own `forward` (`probs = scores.gather(1, t).squeeze()` in a criterion);
    and, in a model's `forward`, a squeezed value that flows into what forward returns (the outputs
    the loss receives); and in a loss, row indices `idx = mask.nonzero().squeeze()` that pick rows which
    keep an axis (`scores[idx, :]`, `F.cross_entropy(logits[idx], y[idx])`, or handed to a method doing so).
    Other squeezes of indices (`values[idx].sum()`), squeezes added in place into an existing buffer
    (`out += x.squeeze()`) and squeezes for metrics are not flagged; nor are squeezes of a value computed from the
    module's own weights alone (`torch.logdet(self.conv.weight.squeeze().unsqueeze(0)).squeeze()`, WaveGlow), squeezes
    in a forward over a graph's nodes (it reads a DGL graph or hands a parameter to a DGL/PyG layer, or the module
    is built only as a layer of such forwards; no readout or reshape before the squeeze: the leading axis counts
    nodes), and a graph's whole label column squeezed once (`graph.ndata["label"] = labels.squeeze()`).

    Why is this bad: squeeze() removes every axis of size 1. For a batch of one (the last,
    incomplete batch or single-example fine-tuning) the batch axis goes too, and the loss then
    broadcasts or reduces over the wrong axes, or fails only on that rare batch.
    """

    code = "MLD041"
    name = "squeeze-without-dim-on-loss-path"
    category = "shapes"
    severity = "warning"
    message = "squeeze() without a dim feeds a loss: with a batch of one it also drops the batch axis"
    why = "squeeze() removes every size-1 axis, so a batch of one loses its batch axis and the loss broadcasts wrongly."
    fix = "Name the axis: .squeeze(-1) or .squeeze(1) (and assert pred.shape == target.shape)."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    requires_text = ('squeeze',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch.nn.functional as F\n"
        "def step(model, x, y):\n"
        "    pred = model(x).squeeze()\n"
        "    return F.mse_loss(pred, y)\n"
    )
    GOOD = (
        "import torch.nn.functional as F\n"
        "def step(model, x, y):\n"
        "    pred = model(x).squeeze(-1)\n"
        "    return F.mse_loss(pred, y)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if _squeezed(node, ctx) is node:
            message = _in_forward(node, ctx) or squeezed_rows_index(node, ctx) or unit_axis_squeeze(node, ctx)
            if message:
                yield Hit(node, message)
            return
        if not is_loss_call(node, ctx):
            return
        args = list(node.args) + [k.value for k in node.keywords if k.arg]
        squeezes = [_squeezed_arg(arg, node, ctx) for arg in args]
        if len(args) >= 2 and squeezes[0] is not None and squeezes[1] is not None:
            return  # loss(pred.squeeze(), target.squeeze()): a batch of one loses its axis from both alike
        if len(args) >= 2 and _one_built_like_other(args[0], args[1], node, ctx):
            return  # bce(sim, torch.ones_like(sim)): the target takes the squeezed shape, whatever it is
        for squeeze in squeezes:
            if squeeze is not None and not _elementwise_on_a_column(squeeze, node, ctx):
                yield Hit(squeeze)


ELEMENTWISE = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss"}


def _elementwise_on_a_column(squeeze: ast.Call, loss: ast.Call, ctx: ModuleContext) -> bool:
    """`F.mse_loss(td_target, q.gather(1, actions).squeeze())`: the squeezed value is a (B, 1) column (one entry
    gathered per row), and an elementwise regression loss of a batch of one compares one value with one value
    whatever the shapes (the DQN update of abcdrl). A (B, C) output squeezed to (C,) is another matter."""
    name = (ctx.call_name(loss) or ctx.constructed(loss.func) or "").rsplit(".", 1)[-1]
    tensor = squeeze.func.value if ctx.call_name(squeeze) is None else (squeeze.args[0] if squeeze.args else None)
    if name not in ELEMENTWISE or not isinstance(tensor, ast.Call):
        return False
    if ctx.call_name(tensor) == "torch.gather":
        position = 1  # torch.gather(input, dim, index)
    elif ctx.call_name(tensor) is None and ctx.method_name(tensor) == "gather":
        position = 0  # input.gather(dim, index)
    else:
        return False
    dim = tensor.args[position] if len(tensor.args) > position else \
        next((k.value for k in tensor.keywords if k.arg == "dim"), None)
    return isinstance(dim, ast.Constant) and dim.value in (1, -1)


def _squeezed_arg(arg: ast.expr, call: ast.Call, ctx: ModuleContext) -> ast.Call | None:
    squeeze = _squeezed(arg, ctx)
    if squeeze is None and isinstance(arg, ast.Name):
        # one assignment back: pred = out.squeeze(); loss(pred, y)
        values = ctx.values_of(arg, at=call)
        squeeze = _squeezed(values[0], ctx) if values else None
        arg = values[0] if values and squeeze is None else arg
    if squeeze is None and isinstance(arg, ast.Subscript):
        squeeze = _squeezed_under_key(arg, ctx)
    return squeeze


def _squeezed_under_key(read: ast.Subscript, ctx: ModuleContext) -> ast.Call | None:
    """`batch["label"]` read for the loss where another method of the module stored `batch["label"] =
    batch["label"].squeeze()` (a Lightning batch hook, a collate step): the loss gets the squeezed labels."""
    key = read.slice
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    return ctx.memo(("mld041", "keyed-squeezes"), lambda: _keyed_squeezes(ctx)).get(key.value)


def _keyed_squeezes(ctx: ModuleContext) -> dict[str, ast.Call]:
    """The first dim-less squeeze stored under each string key of the module (`batch["y"] = batch["y"].squeeze()`)."""
    found: dict[str, ast.Call] = {}
    for assign in ctx.by_type.get(ast.Assign, ()):
        target = assign.targets[-1]
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                and isinstance(target.slice.value, str) and (squeeze := _squeezed(assign.value, ctx)) is not None \
                and not _whole_graph_column(assign, ctx):
            found.setdefault(target.slice.value, squeeze)
    return found


GRAPH_DATA = {"ndata", "edata"}


def _whole_graph_column(assign: ast.Assign, ctx: ModuleContext) -> bool:
    """`graph.ndata["label"] = labels.squeeze()` outside any loop: a graph's node (or edge) column, stored once
    when the data set is loaded (dgl's graphsage example on ogbn-products), counts nodes, not a batch."""
    store = assign.targets[-1].value
    if not (isinstance(store, ast.Attribute) and store.attr in GRAPH_DATA):
        return False
    return not any(isinstance(a, ast.For | ast.AsyncFor | ast.While) for a in ctx.ancestors(assign))


def _in_forward(squeeze: ast.Call, ctx: ModuleContext) -> str | None:
    """The message when `squeeze` (a dim-less squeeze) lies on the way from a forward's inputs to its result."""
    found = enclosing_forward(squeeze, ctx)
    if found is None:
        return None
    cls, forward = found
    if not is_loss_class(cls) and _exported_wrapper(cls, ctx):
        return None
    if ctx.call_name(squeeze) is None:
        tensor = squeeze.func.value
    else:  # torch.squeeze(x) or torch.squeeze(input=x)
        tensor = next(iter(squeeze.args), None) or next((k.value for k in squeeze.keywords if k.arg == "input"), None)
        if tensor is None:
            return None
    if isinstance(tensor, ast.Call) and ctx.method_name(tensor) in INDEX_METHODS or _rows_of_parameter(tensor, ctx):
        return None
    if from_attributes_only(tensor, forward, ctx) or over_graph_nodes(forward, cls, squeeze, ctx):
        return None  # a weight's own axes (`torch.logdet(W.unsqueeze(0)).squeeze()`), or a graph's node axis
    if _shape_free_use(squeeze, ctx) or _rank_tested(squeeze, tensor, forward, ctx) \
            or _reshaped_after(squeeze, ctx) or _shape_read(squeeze, ctx):
        return None
    holder = ctx.parent(squeeze)
    while isinstance(holder, ast.Call) and ctx.method_name(holder) in SHAPE_KEEPING:
        holder = ctx.parent(holder)
    if is_loss_class(cls):
        # kept in a name and computed with further: `out += x.squeeze()` keeps the buffer's shape instead
        return IN_LOSS if isinstance(holder, ast.Assign) and not _squeezed_alike(squeeze, forward, ctx) else None
    if isinstance(holder, ast.AugAssign) and not isinstance(holder.value, ast.List):
        return None
    return IN_FORWARD if reaches_return(squeeze, forward, ctx) and not _squeezed_alike(squeeze, forward, ctx) else None


def _rank_tested(squeeze: ast.Call, tensor: ast.expr, forward: ast.AST, ctx: ModuleContext) -> bool:
    """Under an `if` of the forward that tests the tensor's rank or size (`if torch.squeeze(x).dim() == 1:
    x = torch.squeeze(x, dim=1) else: x = torch.squeeze(x)`, Conv-TasNet's decoder): the batch of one is handled."""
    name = ast.unparse(tensor)

    def reads_rank(node: ast.AST) -> bool:  # `x.dim()`, `torch.squeeze(x).size(0)`, `x.shape`, `x.ndim`
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("dim", "size", "ndim"):
            return any(ast.unparse(part) == name for part in ast.walk(node.func.value))
        return isinstance(node, ast.Attribute) and node.attr in SIZE_ATTRIBUTES and ast.unparse(node.value) == name

    for ancestor in ctx.ancestors(squeeze):
        if ancestor is forward:
            return False
        if isinstance(ancestor, ast.If) and any(reads_rank(n) for n in ast.walk(ancestor.test)):
            return True
    return False


# graph capture for deployment: the wrapper is run on the fixed example input it is traced with
EXPORTS = {"torch.jit.trace", "torch.jit.script", "torch.onnx.export", "torch.export.export", "coremltools.convert"}


def _exported_wrapper(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """A module this file builds only to trace or export (`model = iOSModel(model, im)`, `torch.jit.trace(model, im)`)
    in a file that never runs backward(): an export wrapper, whose squeeze of the fixed batch of one is deliberate."""
    if ctx.backward_scopes:
        return False
    def compute() -> set[str]:  # the classes whose instances this file exports
        exported = set()
        for call in ctx.by_type.get(ast.Call, ()):
            if ctx.call_name(call) in EXPORTS and call.args:
                model = call.args[0]
                values = ctx.values_of(model, at=call) if isinstance(model, ast.Name) else [model]
                exported |= {v.func.id for v in values if isinstance(v, ast.Call) and isinstance(v.func, ast.Name)}
        return exported
    return cls.name in ctx.memo(("mld041-exported",), compute)


def _squeezed_alike(squeeze: ast.Call, forward: ast.AST, ctx: ModuleContext) -> bool:
    """`p = pred[:, j].squeeze()`, `t = target[:, j].squeeze()`, `self.mse(p, t)`: a loss call in this forward
    takes the squeezed value with a second dim-less squeeze as its pair (or with a target built from it by
    torch.ones_like and the like), so a batch of one drops the axis from both and they still match."""
    for call in ast.walk(forward):
        if isinstance(call, ast.Call) and len(call.args) >= 2 and is_loss_call(call, ctx):
            pair = [_squeezed_arg(arg, call, ctx) for arg in call.args[:2]]
            if None not in pair and squeeze in pair:
                return True
            if squeeze in pair and _one_built_like_other(call.args[0], call.args[1], call, ctx):
                return True  # bce(sim, torch.ones_like(sim)): the target follows the squeezed shape
    return False


def _rows_of_parameter(tensor: ast.AST, ctx: ModuleContext) -> bool:
    """`self.a.mm(h)`, `torch.matmul(self.a, h)`, `self.a @ h` with `self.a = nn.Parameter(...)`: the leading
    axis squeeze() removes is the weight's row count, not the batch axis (a graph layer's attention vector)."""
    if isinstance(tensor, ast.BinOp) and isinstance(tensor.op, ast.MatMult):
        weight = tensor.left
    elif isinstance(tensor, ast.Call) and ctx.method_name(tensor) in ("mm", "matmul") and ctx.call_name(tensor) is None:
        weight = tensor.func.value
    elif isinstance(tensor, ast.Call) and ctx.call_name(tensor) in ("torch.mm", "torch.matmul") and tensor.args:
        weight = tensor.args[0]
    else:
        return False
    if not (isinstance(weight, ast.Attribute) and isinstance(weight.value, ast.Name) and weight.value.id == "self"):
        return False
    values = ctx.values_of(weight)
    return bool(values) and all((ctx.call_name(v) or "").endswith("Parameter") for v in values)


def _squeezed(expr: ast.expr, ctx: ModuleContext) -> ast.Call | None:
    while isinstance(expr, ast.Call) and ctx.method_name(expr) in SHAPE_KEEPING and ctx.call_name(expr) is None:
        expr = expr.func.value
    if not isinstance(expr, ast.Call) or ctx.method_name(expr) != "squeeze" or _an_array(expr.func.value, ctx):
        return None
    name = ctx.call_name(expr)
    if name == "torch.squeeze":
        given = len(expr.args) > 1 or any(k.arg == "dim" for k in expr.keywords)
    elif name is None:  # a method on a tensor, not numpy.squeeze and the like
        given = bool(expr.args) or any(k.arg == "dim" for k in expr.keywords)
    else:
        return None
    return None if given else expr


# torch.*_like builds a tensor of its argument's shape
LIKE = {"torch.ones_like", "torch.zeros_like", "torch.full_like", "torch.empty_like", "torch.rand_like",
        "torch.randn_like"}
# consumers whose result does not depend on the squeezed value's leading axes: masked_select broadcasts its
# mask against the input and returns a flat vector, so a mask squeezed to 0-d for a batch of one selects alike
MASK_CONSUMERS = {"torch.masked_select": 1}


def _one_built_like_other(a: ast.expr, b: ast.expr, call: ast.Call, ctx: ModuleContext) -> bool:
    """Either argument of the loss `call` is built like the other (`bce(sim, torch.ones_like(sim))`)."""
    return _built_like(b, a, call, ctx) or _built_like(a, b, call, ctx)


def _built_like(target: ast.expr, pred: ast.expr, call: ast.Call, ctx: ModuleContext) -> bool:
    """`target` is (one assignment back) `torch.ones_like(pred)`, with `pred` the same name the loss receives."""
    if not isinstance(pred, ast.Name):
        return False
    values = ctx.values_of(target, at=call) if isinstance(target, ast.Name) else [target]
    return bool(values) and all(isinstance(v, ast.Call) and ctx.call_name(v) in LIKE and v.args
                                and isinstance(v.args[0], ast.Name) and v.args[0].id == pred.id for v in values)


def _shape_free_use(squeeze: ast.Call, ctx: ModuleContext) -> bool:
    """`torch.masked_select(t, mask.squeeze())`: the squeeze is the mask of a call whose output is flat anyway."""
    holder = ctx.parent(squeeze)
    if not isinstance(holder, ast.Call):
        return False
    position = MASK_CONSUMERS.get(ctx.call_name(holder) or "")
    if position is not None and position < len(holder.args) and holder.args[position] is squeeze:
        return True
    return ctx.method_name(holder) == "masked_select" and ctx.call_name(holder) is None \
        and bool(holder.args) and holder.args[0] is squeeze


# methods whose result is a NumPy array or a Python value: squeezing it is no tensor on a loss path
LEAVES_TORCH = {"numpy", "tolist", "item"}


def _an_array(receiver: ast.expr, ctx: ModuleContext) -> bool:
    """`target[0].detach().cpu().numpy().squeeze()`: a NumPy array (KP2D's debug heat map), not a tensor; and
    `img[0].detach().cpu().clone().squeeze()`: a copy taken off the graph and the device, for a picture or a log."""
    methods = set()
    while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and ctx.call_name(receiver) is None:
        methods.add(receiver.func.attr)
        receiver = receiver.func.value
    return bool(methods & LEAVES_TORCH) or {"detach", "cpu"} <= methods


RESHAPES = {"view", "reshape"}


def _reshaped_input(call: ast.AST, ctx: ModuleContext) -> ast.expr | None:
    """What a reshape to two axes or more takes (`x` of `x.view(batch, 1, 2048)`, `x.reshape(d.shape[0], -1, 8, 8)`,
    `torch.reshape(x, (n, -1))`): the reshape sets the rank whatever axes a squeeze before it removed."""
    if not isinstance(call, ast.Call):
        return None
    if ctx.call_name(call) == "torch.reshape" and call.args:
        tensor, shape = call.args[0], call.args[1:]
    elif ctx.call_name(call) is None and ctx.method_name(call) in RESHAPES:
        tensor, shape = call.func.value, call.args
    else:
        return None
    if len(shape) == 1 and isinstance(shape[0], ast.Tuple | ast.List):
        shape = shape[0].elts
    return tensor if len(shape) >= 2 and not any(isinstance(d, ast.Starred) for d in shape) else None


def _reshaped_after(squeeze: ast.Call, ctx: ModuleContext) -> bool:
    """The squeezed value is reshaped to a full shape before it goes on: within its expression (`torch.cat((l.squeeze(),
    pad), -1).reshape(d.shape[0], -1, 8, 8)`, image2reverb) or by the next statement that reads the name it is kept in
    (`x = x.squeeze()` then `x = x.view(batch, 1, 2048)`, PointFusion): a batch of one gets its axis back."""
    for ancestor in ctx.ancestors(squeeze):
        if isinstance(ancestor, ast.stmt):
            break
        tensor = _reshaped_input(ancestor, ctx)
        if tensor is not None and any(part is squeeze for part in ast.walk(tensor)):
            return True
    holder = ctx.parent(squeeze)
    if not (isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name)):
        return False
    name = holder.targets[0].id
    statements = getattr(ctx.parent(holder), "body", [])
    if holder not in statements:
        return False
    for later in statements[statements.index(holder) + 1:]:
        reads = [n for n in ast.walk(later) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if reads:  # the first statement that reads the name: `x = x.view(batch, -1)` or `return x.view(batch, -1)`
            tensor = _reshaped_input(later.value, ctx) if isinstance(later, ast.Assign | ast.Return) else None
            return tensor is not None and any(tensor is read for read in reads)
    return False


def _shape_read(squeeze: ast.Call, ctx: ModuleContext) -> bool:
    """`list(l.squeeze().shape)`, `x.squeeze().dim()`: what is read is a size, not the squeezed values."""
    holder = ctx.parent(squeeze)
    if isinstance(holder, ast.Attribute) and holder.attr in SIZE_ATTRIBUTES:
        return True
    return isinstance(holder, ast.Attribute) and holder.attr in ("size", "dim", "numel") \
        and isinstance(ctx.parent(holder), ast.Call)
