"""The magnitude of a spectrum (`abs(stft(y))`): zero in silence and padding, so its log needs a floor (MLD061)."""

from __future__ import annotations

import ast

from ..context import ModuleContext

ABS = {"numpy.abs", "numpy.absolute", "torch.abs", "torch.absolute", "abs"}
# transforms whose output is a spectrum: librosa.stft, torch.stft, numpy/torch fft and rfft families
SPECTRA = ("stft", "fft", "rfft", "fft2", "rfft2", "fftn", "rfftn", "cqt", "spectrogram")


def spectrum_magnitude(expr: ast.expr, ctx: ModuleContext) -> bool:
    """`np.abs(S)` / `S.abs()` / `abs(S)` where S is a spectral transform's output, read directly or through a name
    (`S = librosa.stft(y)`); an `abs(...) + eps` or a clamp is not this expression."""
    value = ctx.resolve(expr) if isinstance(expr, ast.Name) else expr
    if not isinstance(value, ast.Call) or isinstance(expr, ast.Name) and _floored_in_place(expr, ctx):
        return False
    name = ctx.call_name(value)
    if name in ABS and len(value.args) == 1:
        operand = value.args[0]
    elif name is None and ctx.method_name(value) == "abs" and not value.args:
        operand = value.func.value
    else:
        return False
    return _spectrum(operand, ctx)


def _spectrum(expr: ast.expr, ctx: ModuleContext) -> bool:
    value = ctx.resolve(expr) if isinstance(expr, ast.Name) else expr
    if not isinstance(value, ast.Call):
        return False
    name = ctx.call_name(value) or ""
    return name.rsplit(".", 1)[-1] in SPECTRA and name.split(".", 1)[0] in {"librosa", "torch", "numpy", "scipy"}


def _floored_in_place(name: ast.Name, ctx: ModuleContext) -> bool:
    """An item write into the name before the log (`mag[mag == 0] = eps`, `np.clip(mag, eps, None, out=mag)` aside):
    the zeros may be floored there."""
    scope = ctx.scope_of(name)
    return any(isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name)
               and node.value.id == name.id and node.lineno <= name.lineno for node in ast.walk(scope))
