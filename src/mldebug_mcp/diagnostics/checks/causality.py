"""Check 11: in a causal sequence model, the output at position t ignores inputs after t."""

from __future__ import annotations

from typing import Any

from .base import FAIL, PASS, Check, rounded
from .dependence import depends
from .session import Session

CHECK = Check("causality", "Causality for sequence models", (
    "karpathy-recipe/backprop-to-chart-dependencies",))

TOLERANCE = 1e-6


def run(s: Session) -> Any:
    import torch

    if not s.spec.is_causal:
        return CHECK.skip("the spec does not claim causality (task is not 'lm' and causal is not set)")
    seq_dim = s.spec.seq_dim if s.spec.seq_dim is not None else 1
    inputs = s.batch[0]
    s.seeded()
    model = s.fresh_model(train=False)
    out = s.logits(model, inputs).detach()
    length = out.shape[seq_dim] if out.ndim > seq_dim else 0
    if length < 3:
        return CHECK.skip(f"the output has no sequence axis {seq_dim} of length >= 3 (shape {tuple(out.shape)})")
    generator = torch.Generator().manual_seed(s.probe_seed)
    leaks = {}
    for t in sorted({0, length // 2, length - 2}):
        index = (slice(None),) * seq_dim + (slice(0, t + 1),)
        leaks[t] = depends(lambda x: s.logits(model, x), inputs, index, lambda x, t=t: _after(x, t, seq_dim), generator)
    leaking = [t for t, v in leaks.items() if v > TOLERANCE]
    measured = {"positions_tested": list(leaks), "leak_by_position": {str(t): rounded(v) for t, v in leaks.items()}}
    if leaking:
        summary = (f"outputs at positions <= {leaking[0]} change when later inputs change: the causal mask is "
                   "missing, transposed or off by one")
        status = FAIL
    else:
        status, summary = PASS, f"outputs up to each tested position ignore later inputs ({len(leaks)} positions)"
    return CHECK.result(
        status, summary, measured=measured, expected={"leak": 0.0},
        meaning="A decoder that sees the future learns to copy it: training loss collapses and generation fails.",
        next_test="Print the attention mask for a length-4 input; it must be lower-triangular (True/0 on and below the diagonal).")


def _after(x: Any, t: int, seq_dim: int) -> Any:
    import torch

    mask = torch.zeros_like(x, dtype=torch.float32)
    if x.ndim > seq_dim:
        index = (slice(None),) * seq_dim + (slice(t + 1, None),)
        mask[index] = 1
    return mask
