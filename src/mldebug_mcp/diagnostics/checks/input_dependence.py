"""Check 3: the model learns from its inputs and its targets, not from a side channel."""

from __future__ import annotations

import math
from typing import Any

from .base import FAIL, PASS, SKIPPED, WARN, Check, band, rounded
from .overfit import real_curve
from .session import Session
from .tensors import map_tensors, replace_content, tensors_in

CHECK = Check("input_dependence", "Real vs zeroed and random inputs, real vs shuffled targets", (
    "slavv/try-random-input", "slavv/shuffle-labels-with-inputs", "karpathy-recipe/overfit-one-batch"))

PASS_RATIO, FAIL_RATIO = 0.7, 0.9  # our thresholds: real loss / baseline loss after the same steps
TAIL = 5  # average the last steps so dropout noise does not decide the verdict


def run(s: Session) -> Any:
    import torch

    real = real_curve(s)
    if not all(math.isfinite(v) for v in real):
        return CHECK.skip("the real-data run diverged; see overfit_one_batch and first_nonfinite")
    n = min(s.baseline_steps, len(real))
    inputs, targets = s.batch
    generator = torch.Generator().manual_seed(s.probe_seed)
    variants = {
        "zeroed inputs": ((replace_content(inputs, lambda _, t: torch.zeros_like(t)), targets)),
        "random inputs": ((replace_content(inputs, lambda _, t: _noise_like(t, generator)), targets)),
    }
    shuffled = _shuffled(targets, generator)
    if shuffled is not None:
        variants["shuffled targets"] = (_relabelled(inputs, targets, shuffled), shuffled)
    real_tail = _tail(real[:n])
    measured: dict[str, Any] = {"steps": n, "real_loss": rounded(real_tail)}
    series = {"real": [rounded(v) for v in real[:n]]}
    verdicts = {}
    for name, batch in variants.items():
        curve = s.train_curve(name, batch, n)
        series[name] = [rounded(v) for v in curve]
        base = _tail(curve)
        ratio = real_tail / base if base > 0 else math.inf
        measured[_key(name)] = rounded(ratio)
        verdicts[name] = band(ratio, PASS_RATIO, FAIL_RATIO)
    status = max(verdicts.values(), key=[SKIPPED, PASS, WARN, FAIL].index)
    bad = [k for k, v in verdicts.items() if v != PASS]
    if not bad:
        summary = f"real data is learnt clearly faster than {', '.join(verdicts)} after {n} steps"
    elif any("targets" in k for k in bad) and len(bad) == 1:
        summary = ("true targets are learnt no faster than shuffled ones: the targets do not follow the inputs "
                   "(labels shuffled separately from inputs, or misaligned)")
    else:
        summary = (f"real inputs are learnt no faster than {', '.join(b for b in bad if 'inputs' in b) or 'the baselines'}: "
                   "the input is not reaching the output or the data is destroyed")
    return CHECK.result(
        status, summary, measured=measured, series=series,
        expected={"real_over_baseline_pass": PASS_RATIO, "real_over_baseline_fail": FAIL_RATIO},
        details=[f"{v}: {k} (real/baseline = {measured[_key(k)]})" for k, v in verdicts.items()],
        meaning="Zeroed or random inputs, and shuffled targets, can only teach the label marginal; "
                "real data must do clearly better or the model is not using its input.",
        next_test="Print the tensor right before model(x) at each pipeline stage, and decode a few samples with their labels.")


def _key(variant: str) -> str:
    return "real_over_" + variant.replace(" ", "_")


def _tail(curve: list[float]) -> float:
    tail = curve[-TAIL:]
    return sum(tail) / len(tail)


def _noise_like(t: Any, generator: Any) -> Any:
    import torch

    if t.is_floating_point():
        spread = t.float().std() if t.numel() > 1 else torch.tensor(1.0)
        noise = torch.randn(t.shape, generator=generator).to(t.device, t.dtype)
        return noise * spread.to(t.dtype) + t.mean()
    high = int(t.max()) + 1 if t.numel() else 1
    return torch.randint(0, max(high, 1), t.shape, generator=generator).to(t.device, t.dtype)


def _relabelled(inputs: Any, targets: Any, shuffled: Any) -> Any:
    """The inputs with the labels they carry (Hugging Face style) replaced by the shuffled targets.

    Labels are found by name ('labels'); only without one, by equality with the targets, since a
    causal LM's labels equal its input_ids, which must stay in place."""
    import torch

    fits = [k for k, t in tensors_in(inputs) if t.shape == targets.shape]
    named = [k for k in fits if "label" in k.lower()]
    chosen = set(named) if named else {k for k, t in tensors_in(inputs) if k in fits and torch.equal(t, targets)}
    return map_tensors(inputs, lambda k, t: shuffled if k in chosen else t)


def _shuffled(targets: Any, generator: Any) -> Any:
    import torch

    if not isinstance(targets, torch.Tensor) or targets.ndim == 0 or targets.shape[0] < 2:
        return None
    order = torch.randperm(targets.shape[0], generator=generator)
    while bool((order == torch.arange(len(order))).all()):
        order = torch.randperm(targets.shape[0], generator=generator)
    shuffled = targets[order.to(targets.device)]
    return None if torch.equal(shuffled, targets) else shuffled
