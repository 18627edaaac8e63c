"""Check 11: in a causal sequence model, the output at position t ignores inputs after t.

The inputs are perturbed along their sequence axis and the outputs read along theirs, as the
contract establishes them (an LM's (B, V, T) logits run along dim 2, not 1); the result says which.
"""

from __future__ import annotations

from typing import Any

from .base import FAIL, PASS, Check, rounded
from .contract import contract_of
from .dependence import depends
from .session import Session

CHECK = Check("causality", "Causality for sequence models", (
    "karpathy-recipe/backprop-to-chart-dependencies",))

TOLERANCE = 1e-6


def run(s: Session) -> Any:
    import torch

    if not s.spec.is_causal:
        return CHECK.skip("the spec does not claim causality (task is not 'lm' and causal is not set)")
    c = contract_of(s)
    in_dim, out_dim = c.in_seq_dim, c.out_seq_dim
    if in_dim is None or out_dim is None or c.output_shape is None:
        return CHECK.skip(f"no sequence axis to test: {c.seq_how}")
    length = c.output_shape[out_dim]
    if length < 3:
        return CHECK.skip(f"the output's sequence axis {out_dim} has length {length}; at least 3 are needed")
    inputs = s.batch[0]
    s.seeded()
    model = s.fresh_model(train=False)
    generator = torch.Generator().manual_seed(s.probe_seed)
    leaks = {}
    for t in sorted({0, length // 2, length - 2}):
        index = (slice(None),) * out_dim + (slice(0, t + 1),)
        leaks[t] = depends(lambda x: s.logits(model, x), inputs, index, lambda x, t=t: _after(x, t, in_dim), generator)
    leaking = [t for t, v in leaks.items() if v > TOLERANCE]
    recurrent = _recurrent(model)
    measured = {"positions_tested": list(leaks), "leak_by_position": {str(t): rounded(v) for t, v in leaks.items()},
                "input_seq_dim": in_dim, "output_seq_dim": out_dim, "axes": c.seq_how,
                "recurrent_modules": [f"{name} ({kind})" for name, kind, _ in recurrent]}
    details = [f"axes: {c.seq_how}"]
    bidirectional = [name for name, _, both in recurrent if both]
    if recurrent:
        details.append("recurrent layers: " + ", ".join(f"{name} ({kind}, {'bidirectional' if both else 'causal by construction'})"
                                                          for name, kind, both in recurrent))
    if leaking:
        cause = (f"the bidirectional recurrent layer {', '.join(bidirectional)} reads the sequence backwards too"
                 if bidirectional else "the causal mask is missing, transposed or off by one")
        status, summary = FAIL, (f"outputs at positions <= {leaking[0]} (dim {out_dim}) change when later inputs "
                                 f"(dim {in_dim}) change: {cause}")
    else:
        status, summary = PASS, (f"outputs up to each tested position ignore later inputs ({len(leaks)} positions; "
                                 f"inputs along dim {in_dim}, outputs along dim {out_dim})")
    return CHECK.result(
        status, summary, measured=measured, expected={"leak": 0.0}, details=details,
        meaning="A decoder that sees the future learns to copy it: training loss collapses and generation fails.",
        next_test="Print the attention mask for a length-4 input; it must be lower-triangular (True/0 on and below the "
                  "diagonal). If the axes above are wrong, set seq_dim in the spec.")


def _recurrent(model: Any) -> list[tuple[str, str, bool]]:
    """(name, type, bidirectional) of the recurrent layers: a unidirectional RNN/GRU/LSTM is causal."""
    import torch

    return [(name or "(model)", type(m).__name__, bool(m.bidirectional)) for name, m in model.named_modules()
            if isinstance(m, torch.nn.RNNBase)]


def _after(x: Any, t: int, seq_dim: int) -> Any:
    import torch

    mask = torch.zeros_like(x, dtype=torch.float32)
    if x.ndim > seq_dim:
        index = (slice(None),) * seq_dim + (slice(t + 1, None),)
        mask[index] = 1
    return mask
