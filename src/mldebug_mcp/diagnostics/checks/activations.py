"""Check 8: nonlinearities work in their useful range (no dead ReLUs, no saturated tanh/sigmoid)."""

from __future__ import annotations

from typing import Any

from .base import PASS, Check, band, rounded
from .session import Session

CHECK = Check("activations", "Activation health: dead units and saturation", (
    "goodfellow/visualize-model-in-action", "spinningup/measure-everything"))

# Our thresholds (refs/diagnostics.md): dead fraction > 10% warns, > 50% fails; the same for
# saturation with a 5% warn level. Tanh counts as saturated beyond |a| > 0.97 (Karpathy's cut-off).
DEAD_WARN, DEAD_FAIL, SAT_WARN, SAT_FAIL = 0.10, 0.50, 0.05, 0.50
TANH_CUT, SIGMOID_LOW, SIGMOID_HIGH = 0.97, 0.03, 0.97
SCALE_WARN = 100.0  # activation std far beyond unit scale (our threshold)
FEW_UNITS = 16  # our threshold: a layer with fewer units, not all silent, warns at most on dead units


def run(s: Session) -> Any:
    import torch

    s.seeded()
    model = s.fresh_model(train=True)
    stats: dict[str, dict[str, float]] = {}
    producers: dict[int, str] = {}  # id of a leaf module's output -> that module's type
    handles = [m.register_forward_hook(_recorder(name or type(m).__name__, m, stats, producers))
               for name, m in model.named_modules() if not list(m.children())]
    try:
        with torch.no_grad():
            s.logits(model, s.batch[0])
    finally:
        for h in handles:
            h.remove()
    graded = {n: v for n, v in stats.items() if "dead" in v or "saturated" in v}
    if not stats:
        return CHECK.skip("no leaf module produced a tensor to inspect")
    verdicts = []
    for name, v in graded.items():
        if "dead" in v:
            status = band(v["dead"], DEAD_WARN, DEAD_FAIL)
            if status == "fail" and v["units"] < FEW_UNITS and v["dead"] < 1:
                status = "warn"  # most of a handful of units silent at init: too few to call the layer broken
            verdicts.append((status, f"{name}: {v['dead']:.0%} of {v['units']} ReLU units never fire"))
        if "saturated" in v:
            verdicts.append((band(v["saturated"], SAT_WARN, SAT_FAIL), f"{name}: {v['saturated']:.0%} of outputs saturated"))
    for name, v in stats.items():
        if v["std"] > SCALE_WARN:
            verdicts.append(("warn", f"{name}: activation std {v['std']:.3g}, far beyond unit scale"))
    bad = [(st, t) for st, t in verdicts if st != PASS]
    order = ["pass", "warn", "fail"]
    status = max((st for st, _ in verdicts), key=order.index, default=PASS)
    if not graded and not bad:
        return CHECK.skip("no nn.ReLU/Tanh/Sigmoid modules to hook (functional activations are invisible to hooks); "
                          "activation scales are in the series")
    # the summary speaks for the worst layer, which is not always the first one found
    summary = next((t for st, t in bad if st == status), f"{len(graded)} activation layers in their working range")
    return CHECK.result(
        status, summary, details=[f"{st}: {t}" for st, t in bad],
        measured={n: {k: rounded(x) for k, x in v.items()} for n, v in graded.items()},
        expected={"dead_fraction_warn": DEAD_WARN, "saturated_fraction_warn": SAT_WARN},
        series={"activation_std": {n: rounded(v["std"]) for n, v in stats.items()}},
        meaning="Dead ReLUs pass no gradient and saturated tanh/sigmoid units pass almost none: those units stop "
                "learning while the loss still moves.",
        next_test="Check the input scale of the layer before the dead or saturated one, its bias and init scale, "
                  "and whether the learning rate ever spiked.")


def _recorder(name: str, module: Any, stats: dict, producers: dict) -> Any:
    import torch

    kind = type(module).__name__

    def hook(_module: Any, inputs: Any, output: Any) -> None:
        source = producers.get(id(inputs[0])) if inputs and isinstance(inputs[0], torch.Tensor) else None
        if isinstance(output, torch.Tensor):
            producers[id(output)] = kind
        if not isinstance(output, torch.Tensor) or not output.is_floating_point() or output.numel() == 0:
            return
        out = output.detach().float()
        finite = out[out.isfinite()]
        row = {"std": float(finite.std()) if finite.numel() > 1 else 0.0}
        if kind in ("ReLU", "ReLU6") and out.ndim >= 2 and out.shape[0] > 1:
            row["dead"], row["units"] = _dead_fraction(out, source)
        elif kind == "Tanh":
            row["saturated"] = float((out.abs() > TANH_CUT).float().mean())
        elif kind == "Sigmoid":
            row["saturated"] = float(((out < SIGMOID_LOW) | (out > SIGMOID_HIGH)).float().mean())
        stats[name] = row

    return hook


CHANNEL_FIRST = ("Conv", "BatchNorm", "InstanceNorm", "GroupNorm", "MaxPool", "AvgPool", "AdaptiveAvgPool",
                 "AdaptiveMaxPool", "LPPool", "Upsample", "PixelShuffle", "Dropout1d", "Dropout2d", "Dropout3d")


def _dead_fraction(out: Any, source: str | None) -> tuple[float, int]:
    """(fraction of units silent on every sample and at every position, number of units). A unit is
    a feature of a (B, F) output, a channel of a feature map (dim 1, where convolutions put it), or a
    last-axis feature of a linear layer's (B, T, F): a pixel position a filter never fires at on a
    plain background is not a dead unit. `source` is the module type that produced the input, if a module did."""
    silent = out <= 0
    if out.ndim == 2:
        return float(silent.all(dim=0).float().mean()), out.shape[1]
    channels = (float(silent.transpose(0, 1).reshape(out.shape[1], -1).all(dim=1).float().mean()), out.shape[1])
    features = (float(silent.reshape(-1, out.shape[-1]).all(dim=0).float().mean()), out.shape[-1])
    if source is not None:
        return channels if source.startswith(CHANNEL_FIRST) else features
    if out.ndim >= 4:  # images are channel-first; a (B, T, F) of unknown origin gets the milder reading
        return channels
    return min(channels, features)
