"""Whether a conv is run on exactly one window of its kernel, so its output has no spatial extent (MLD040).

`kernel_size = [tp, p, p]`, `self.proj = nn.Conv3d(c, d, kernel_size=kernel_size, stride=kernel_size)`, and the
input viewed to one patch just before (`x.view(-1, c, tp, p, p)`, the Qwen vision patch embedding), or pooled
to the kernel's size (`F.adaptive_max_pool2d(x, (k, 1))` into a `(k, 1)` kernel, timm's non-local block): with no
padding the output is (N, d, 1, 1, 1), so a view that puts the channels last only drops unit axes.
"""

from __future__ import annotations

import ast

from .evaluation import strip_calls
from .tensors_channels import SAME_LAYOUT_METHODS, conv_run, short_size
from .tensors_layout import value_before

RESHAPES = {"view", "reshape"}
ADAPTIVE_POOLS = {"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
                  "adaptive_max_pool2d", "adaptive_max_pool3d"}


def one_window_conv(tensor: ast.expr, at: ast.AST, ctx) -> bool:
    """`tensor` holds a torch conv's output whose input was shaped, in the same function, to the kernel's own
    spatial size, with no padding or dilation: every spatial axis of the output is 1."""
    found = conv_run(tensor, at, ctx)
    if found is None:
        return False
    conv, run = found
    rank = _rank(conv, ctx)
    kernel = _kernel(conv, rank, ctx)
    if kernel is None or not _unpadded(conv) or not run.args:
        return False
    spatial = _input_spatial(run.args[0], run, ctx)
    return spatial is not None and len(spatial) >= rank and [short_size(s) for s in spatial[-rank:]] == kernel


def _rank(conv: ast.Call, ctx) -> int:
    name = (ctx.call_name(conv) or "").rsplit(".", 1)[-1]
    return int(name[-2]) if name[-2:-1].isdigit() else 2


def _kernel(conv: ast.Call, rank: int, ctx) -> list[str] | None:
    """The kernel's sizes as text (`self.` dropped): `kernel_size=(k, 1)`, an int repeated, or a local list."""
    keywords = {k.arg: k.value for k in conv.keywords}
    kernel = keywords.get("kernel_size", conv.args[2] if len(conv.args) > 2 else None)
    if isinstance(kernel, ast.Name):  # `kernel_size = [tp, p, p]` just before; a parameter stays its name
        values = [v for v in ctx.values_of(kernel, at=conv) if getattr(v, "lineno", 0) <= conv.lineno]
        kernel = values[0] if values and isinstance(values[0], ast.Tuple | ast.List) else kernel
    if isinstance(kernel, ast.Tuple | ast.List):
        return [short_size(k) for k in kernel.elts] if len(kernel.elts) == rank else None
    return [short_size(kernel)] * rank if isinstance(kernel, ast.Constant | ast.Name | ast.Attribute) else None


def _unpadded(conv: ast.Call) -> bool:
    keywords = {k.arg: k.value for k in conv.keywords}
    padding = keywords.get("padding", conv.args[4] if len(conv.args) > 4 else None)
    dilation = keywords.get("dilation", conv.args[5] if len(conv.args) > 5 else None)
    zero = padding is None or isinstance(padding, ast.Constant) and padding.value in (0, "valid")
    return zero and (dilation is None or isinstance(dilation, ast.Constant) and dilation.value == 1)


def _input_spatial(expr: ast.expr, run: ast.Call, ctx) -> list[ast.expr] | None:
    """The sizes the conv's input was last shaped to: a view or reshape (its trailing sizes), or an adaptive
    pool's output size, inline or as the value of its name in the same function."""
    expr = strip_calls(expr, SAME_LAYOUT_METHODS)
    if isinstance(expr, ast.Name):
        value = value_before(expr, run, ctx)
        if value is None:
            return None
        expr = strip_calls(value, SAME_LAYOUT_METHODS)
    if not isinstance(expr, ast.Call):
        return None
    if ctx.call_name(expr) is None and ctx.method_name(expr) in RESHAPES:
        sizes = expr.args[0].elts if len(expr.args) == 1 and isinstance(expr.args[0], ast.Tuple | ast.List) \
            else expr.args
        return None if any(isinstance(s, ast.Starred) for s in sizes) else list(sizes)
    if (ctx.call_name(expr) or "").rsplit(".", 1)[-1] in ADAPTIVE_POOLS and len(expr.args) >= 2:
        size = expr.args[1]
        return list(size.elts) if isinstance(size, ast.Tuple | ast.List) else [size]
    return None
