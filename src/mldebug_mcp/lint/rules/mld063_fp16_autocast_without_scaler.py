import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loops import is_backward
from ..helpers.reference_tests import reference_test_module
from ..rule import Hit, Rule

AUTOCASTS = {"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast"}
CUDA_AUTOCASTS = {"torch.cuda.amp.autocast", "torch.cuda.amp.autocast_mode.autocast"}  # float16 by default
FP16 = {"torch.float16", "torch.half"}


class Fp16AutocastWithoutScaler(Rule):
    """What it does: flags float16 autocast (`torch.autocast("cuda")`, `dtype=torch.float16`,
    `torch.cuda.amp.autocast()`) in a function that calls `.backward()`, in a module that never
    creates a GradScaler nor calls `scaler.scale(...)`. bfloat16, CPU autocast, a dtype or device
    that cannot be read statically, and modules that create a scaler anywhere are quiet, as are
    test modules that step no optimiser (a kernel's fp16 forward/backward checked against a
    reference: no weight is trained).

    Why is this bad: float16 cannot represent gradients below about 6e-8, so small gradients
    round to zero in backward. Layers quietly stop learning without a single NaN or error;
    the gradient scaler multiplies the loss first so those values survive.
    """

    code = "MLD063"
    name = "fp16-autocast-without-scaler"
    category = "numerics"
    severity = "warning"
    message = "float16 autocast in a training step with no GradScaler: small gradients underflow to zero"
    why = "fp16 gradients below ~6e-8 flush to zero, so layers silently stop learning without any NaN."
    fix = "Use torch.amp.GradScaler('cuda'): scaler.scale(loss).backward(), scaler.step(opt), scaler.update(); or bf16."
    evidence = "pytorch-docs"
    node_types = (ast.With, ast.AsyncWith)
    requires_text = ('autocast',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "def train(model, opt, loader, loss_fn):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with torch.autocast('cuda', dtype=torch.float16):\n"
        "            loss = loss_fn(model(x), y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
    )
    GOOD = (
        "import torch\n"
        "def train(model, opt, loader, loss_fn):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with torch.autocast('cuda', dtype=torch.float16):\n"
        "            loss = loss_fn(model(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if reference_test_module(ctx):
            return  # gradients compared with a reference, never applied: nothing stops learning
        for item in node.items:
            call = item.context_expr
            if isinstance(call, ast.Name):
                call = ctx.resolve(call)  # amp_ctx = torch.autocast(...); with amp_ctx:
            if isinstance(call, ast.Call) and _is_fp16(call, ctx) and _trains(node, ctx) and not _has_scaler(ctx):
                yield Hit(item.context_expr)


def _is_fp16(call: ast.Call, ctx: ModuleContext) -> bool:
    name = ctx.call_name(call)
    keywords = {k.arg: k.value for k in call.keywords}
    enabled = keywords.get("enabled", call.args[0] if call.args and name in CUDA_AUTOCASTS else None)
    if isinstance(enabled, ast.Constant) and enabled.value is False:
        return False
    if name in CUDA_AUTOCASTS:  # autocast(enabled=True, dtype=torch.float16, ...)
        dtype, device = keywords.get("dtype", call.args[1] if len(call.args) > 1 else None), "cuda"
    elif name in AUTOCASTS:  # autocast(device_type, dtype=None, enabled=True, ...)
        dtype = keywords.get("dtype", call.args[1] if len(call.args) > 1 else None)
        device = _device(keywords.get("device_type", call.args[0] if call.args else None), ctx)
    else:
        return False
    if dtype is None:  # the default is float16 on CUDA only; an unreadable device stays quiet
        return isinstance(device, str) and device.startswith("cuda")
    if isinstance(dtype, ast.Name):
        dtype = ctx.resolve(dtype)
    return ctx.qualname(dtype) in FP16


def _device(expr: ast.expr | None, ctx: ModuleContext, depth: int = 4) -> object:
    """The device type an autocast's argument names: a literal, or read through `str(device)`, `device.type`,
    `torch.device(...)` and names to `"cuda" if torch.cuda.is_available() else "cpu"`, which is CUDA wherever
    training runs on a GPU (Open-Rig3R's `autocast(device_type=str(device))`)."""
    if depth == 0 or expr is None:
        return None
    if isinstance(expr, ast.Name):
        expr = ctx.resolve(expr)
    if isinstance(expr, ast.Attribute) and expr.attr == "type":
        return _device(expr.value, ctx, depth - 1)
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and (
            ctx.call_name(expr) == "torch.device" or (isinstance(expr.func, ast.Name) and expr.func.id == "str")):
        return _device(expr.args[0], ctx, depth - 1)
    if isinstance(expr, ast.IfExp) and _asks_for_cuda(expr.test, ctx):
        return "cuda"
    return _constant(expr, ctx)


def _asks_for_cuda(test: ast.expr, ctx: ModuleContext) -> bool:
    return isinstance(test, ast.Call) and ctx.call_name(test) == "torch.cuda.is_available"


def _constant(expr: ast.expr | None, ctx: ModuleContext) -> object:
    if isinstance(expr, ast.Name):
        expr = ctx.resolve(expr)
    return expr.value if isinstance(expr, ast.Constant) else None


def _trains(node: ast.AST, ctx: ModuleContext) -> bool:
    """The enclosing function (or script) calls loss.backward(); `engine.backward(loss)` scales itself."""
    scope = ctx.scope_of(node)
    return any(is_backward(c) and not c.args for c in ctx.in_scope(scope, (ast.Call,)))


def _backwarded(call: ast.Call, ctx: ModuleContext) -> bool:
    parent = ctx.parent(call)
    return isinstance(parent, ast.Attribute) and parent.attr == "backward"


def _has_scaler(ctx: ModuleContext) -> bool:
    for call in ctx.by_type.get(ast.Call, ()):
        name, method = ctx.call_name(call) or "", ctx.method_name(call) or ""
        bare = call.func.id if isinstance(call.func, ast.Name) else ""  # GradScaler() via a star import
        if any(n.endswith(("GradScaler", "scale_loss")) for n in (name, method, bare)):
            return True
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        receiver_name = receiver.id if isinstance(receiver, ast.Name) else getattr(receiver, "attr", "")
        if method == "scale" and "scaler" in receiver_name.lower():
            return True
        # `s.scale(loss).backward()`: a loss scaler, whatever it is called
        if method == "scale" and len(call.args) == 1 and _backwarded(call, ctx):
            return True
        # A scaler object handed in and called on the loss (timm's NativeScaler: loss_scaler(loss, optimizer)).
        callee = bare or (call.func.attr if isinstance(call.func, ast.Attribute) else "")
        if call.args and "scaler" in callee.lower():
            return True
    return False
