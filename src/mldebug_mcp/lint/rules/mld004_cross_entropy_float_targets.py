import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.losses import receiver_value
from ..rule import Hit, Rule

FLOAT_CASTS = {"float", "double", "half", "bfloat16"}
FLOAT_DTYPES = {f"torch.{t}" for t in ("float", "float32", "float64", "float16", "double", "half", "bfloat16",
                                       "FloatTensor", "DoubleTensor", "HalfTensor", "cuda.FloatTensor")}
MOVES = {"to", "cuda", "cpu", "contiguous", "detach"}
LABEL_WORDS = {"y", "yb", "ys", "label", "labels", "lbl", "lbls", "target", "targets", "tgt", "tgts", "cls"}
# soft-label words, and words for model outputs that merely contain a label word (cls_logits)
SOFT_WORDS = {"soft", "prob", "probs", "smooth", "smoothed", "mix", "mixed", "mixup", "dist", "teacher",
              "logit", "logits", "score", "scores", "pred", "preds", "hat", "out", "output", "outputs", "token", "emb"}


def _is_float_cast(call: ast.Call, ctx: ModuleContext) -> bool:
    method = ctx.method_name(call)
    if method in FLOAT_CASTS and ctx.call_name(call) is None:
        return True
    if method in {"to", "type"}:
        dtypes = call.args + [k.value for k in call.keywords if k.arg == "dtype"]
        return any(ctx.qualname(d) in FLOAT_DTYPES or (isinstance(d, ast.Constant) and d.value in
                   {"torch.FloatTensor", "torch.cuda.FloatTensor"}) for d in dtypes)
    return False


def _label_named(expr: ast.AST) -> bool:
    """`y`, `labels`, `self.targets`, `batch["labels"]`: conventional names for class indices."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        name = expr.slice.value
    else:
        name = expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""
    words = set(re.split(r"[_\W]+", name.lower()))
    return bool(words & LABEL_WORDS) and not words & SOFT_WORDS


def _plain_labels(expr: ast.AST, ctx: ModuleContext) -> bool:
    """A label-named value with no visible soft-label origin (no arithmetic, softmax or mixup on it)."""
    while isinstance(expr, ast.Call) and ctx.method_name(expr) in MOVES and not _is_float_cast(expr, ctx):
        expr = expr.func.value  # y.to(device).float()
    if not _label_named(expr):
        return False
    value = ctx.resolve(expr)
    for _ in range(6):
        if not (isinstance(value, ast.Call) and ctx.method_name(value) in MOVES and not _is_float_cast(value, ctx)):
            break
        value = receiver_value(value, ctx)
    if not isinstance(value, ast.Name | ast.Attribute | ast.Subscript):
        return False  # built by arithmetic, a softmax or some function: may be soft labels
    scope = ctx.scope_of(expr)
    if isinstance(expr, ast.Name) and scope is not ctx.tree:
        # `x, y = mixup_fn(x, y)` binds nothing the context tracks: look for it in this function
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and any(
                isinstance(t, ast.Tuple) and any(isinstance(e, ast.Name) and e.id == expr.id for e in t.elts)
                for t in node.targets
            ) and re.search(r"mix", ast.unparse(node.value.func), re.IGNORECASE):
                return False
    return True


def one_hot_kind(expr: ast.AST, ctx: ModuleContext) -> str | None:
    value = ctx.resolve(expr)
    for _ in range(6):
        if isinstance(value, ast.Call) and ctx.call_name(value) == "torch.nn.functional.one_hot":
            return "F.one_hot(...) target"
        if isinstance(value, ast.Subscript) and ctx.call_name(ctx.resolve(value.value)) == "torch.eye":
            return "torch.eye(k)[labels] target"
        if not (isinstance(value, ast.Call) and ctx.method_name(value) in MOVES | FLOAT_CASTS | {"type"}):
            return None
        if _is_float_cast(value, ctx) and _plain_labels(value.func.value, ctx):
            return "float-cast labels"
        value = receiver_value(value, ctx)
    return None


class CrossEntropyFloatTargets(Rule):
    """What it does: flags CrossEntropyLoss / F.cross_entropy whose target is visibly one-hot or a
    float cast of class labels: F.one_hot(...), torch.eye(k)[labels], labels.float(),
    y.to(torch.float32). Soft labels built by arithmetic (label smoothing, mixup) or a softmax are left alone.

    Why is this bad: since PyTorch 1.10 a float target is read as class probabilities, not indices.
    A one-hot target then skips ignore_index and weights the mean differently, a multi-hot row
    trains a different objective, and a float cast of (N,) indices is not a distribution at all.
    """

    code = "MLD004"
    name = "cross-entropy-float-targets"
    category = "loss"
    severity = "warning"
    message = "{kind} passed to cross-entropy, which wants int64 class indices and reads floats as probabilities"
    why = "CrossEntropyLoss reads a float target as class probabilities; one-hot or cast labels change the objective."
    fix = "Pass int64 class indices of shape (N,) (labels.long()); use BCEWithLogitsLoss for multi-hot targets."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    requires_text = ('cross_entropy', 'CrossEntropyLoss')  # skip modules that cannot contain the pattern
    BAD = (
        "import torch.nn.functional as F\n"
        "def step(model, x, y):\n"
        "    return F.cross_entropy(model(x), F.one_hot(y, 10).float())\n"
    )
    GOOD = (
        "import torch.nn.functional as F\n"
        "def step(model, x, y):\n"
        "    return F.cross_entropy(model(x), y.long())\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.call_name(node) != "torch.nn.functional.cross_entropy" \
                and ctx.constructed(node.func) != "torch.nn.CrossEntropyLoss":
            return
        targets = node.args[1:2] or [k.value for k in node.keywords if k.arg == "target"]
        for target in targets:
            kind = one_hot_kind(target, ctx)
            if kind:
                yield Hit(target, self.message.format(kind=kind))
