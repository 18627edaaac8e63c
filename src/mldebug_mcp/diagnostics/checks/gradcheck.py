"""Check 15: hand-written backward passes agree with finite differences in float64."""

from __future__ import annotations

from typing import Any

from .base import FAIL, WARN, Check, rounded
from .session import Session

CHECK = Check("gradcheck", "Numerical gradient check", (
    "cs231n/gradcheck-double-precision", "cs231n/gradcheck-relative-error-wrong",
    "goodfellow/compare-to-numerical-derivatives"))

RELATIVE_WRONG, RELATIVE_OK = 1e-2, 1e-4  # CS231n's reading of relative error
STEP = 1e-6


def run(s: Session) -> Any:
    if not s.spec.gradcheck:
        return CHECK.skip("no custom autograd functions listed in 'gradcheck'")
    rows, problems = {}, []
    for name, (fn, example) in s.spec.gradcheck.items():
        inputs = _double_inputs(example)
        passed, rel = _gradcheck(fn, inputs)
        rows[name] = {"gradcheck": passed, "relative_error": rounded(rel)}
        if not passed or rel > RELATIVE_WRONG:
            problems.append((FAIL, f"{name}: analytic and numerical gradients disagree (relative error {rel:.2g})"))
        elif rel > RELATIVE_OK:
            problems.append((WARN, f"{name}: relative error {rel:.2g} is uncomfortable for a smooth function"))
    return CHECK.verdict(
        problems, f"{len(rows)} custom function(s) match finite differences", measured=rows,
        expected={"relative_error_below": RELATIVE_OK},
        meaning="A wrong backward trains in a wrong direction without any error; only a numerical comparison shows it.",
        next_test="Derive the backward again for the failing function, term by term, and rerun on a tiny input.")


def _double_inputs(example: Any) -> tuple:
    import torch

    items = example if isinstance(example, (tuple, list)) else (example,)
    return tuple(t.detach().double().requires_grad_(True) if isinstance(t, torch.Tensor) and t.is_floating_point()
                 else t for t in items)


def _gradcheck(fn: Any, inputs: tuple) -> tuple[bool, float]:
    """torch's gradcheck verdict, and CS231n's relative error along one random direction."""
    import torch

    passed = bool(torch.autograd.gradcheck(fn, inputs, eps=STEP, atol=1e-5, rtol=1e-3, raise_exception=False))
    leaves = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    generator = torch.Generator().manual_seed(0)
    out = fn(*inputs)
    weights = torch.randn(out.shape, generator=generator, dtype=out.dtype)
    analytic_grads = torch.autograd.grad((out * weights).sum(), leaves, allow_unused=True)
    directions = [torch.randn(t.shape, generator=generator, dtype=t.dtype) for t in leaves]
    analytic = sum(float((g * d).sum()) for g, d in zip(analytic_grads, directions) if g is not None)
    with torch.no_grad():
        def shifted(sign: float) -> float:
            moved, it = [], iter(directions)
            for t in inputs:
                moved.append(t + sign * STEP * next(it) if isinstance(t, torch.Tensor) and t.requires_grad else t)
            return float((fn(*moved) * weights).sum())
        numeric = (shifted(1.0) - shifted(-1.0)) / (2 * STEP)
    denominator = max(abs(analytic), abs(numeric))
    return passed, abs(analytic - numeric) / denominator if denominator > 0 else 0.0
