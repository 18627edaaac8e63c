"""analyze_curve: which training-loss pathologies a loss log shows, each with the numbers behind it.

Picks the training and validation series (and a metric beside them), cleans them (sorted by step,
the last value of a repeated step kept), runs the detectors and orders their observation keys by importance. The
criterion of each observation is in its detector's docstring (curve_shape, curve_trend,
curve_spikes, curve_val, curve_metric); thresholds are named constants there.
"""

from __future__ import annotations

import math
from array import array

from ..errors import UsageError
from ..models.curves import CurveReport, CurveSeries
from .curve_io import LossLog
from .curve_metric import find_metric_flat, pick_metric
from .curve_shape import find_chance, find_flat, find_nan, find_plateau, find_zero
from .curve_spikes import find_spikes, spike_findings
from .curve_stats import trace_of
from .curve_trend import find_explosion, find_healthy, find_oscillation
from .curve_val import find_gap, find_val_too_good

MIN_POINTS = 10  # fewer points cannot separate a trend from noise
TRAIN_NAMES = (
    "train/loss", "train_loss", "loss", "training_loss", "train/loss_epoch", "train/loss_step",
    "train_loss_epoch", "train_loss_step", "loss/train", "train/epoch_loss", "epoch_loss",
)
VAL_NAMES = (
    "val/loss", "val_loss", "eval/loss", "eval_loss", "validation/loss", "valid/loss", "valid_loss",
    "test/loss", "test_loss", "loss/val", "loss/validation", "validation/epoch_loss",
)
HELD_OUT = ("val", "eval", "test")
NOT_A_LOSS = ("scale", "weight", "coef")  # loss_scale (AMP), loss_weight: named after a loss, not one
# Most important first: a dead or diverged run before a run that is only slow.
IMPORTANCE = (
    "nan", "explodes", "loss_zero", "spike_no_recovery", "flat_from_start", "plateau_at_chance",
    "val_too_good", "train_val_gap", "loss_metric_mismatch", "plateau", "oscillates", "spike_slow_recovery",
    "spike_fast_recovery", "slow_healthy",
)
# A more specific observation hides a broader one that the same data also satisfy.
HIDES = {
    "loss_zero": ("flat_from_start", "plateau", "plateau_at_chance"),
    "oscillates": ("flat_from_start", "plateau"),
    "flat_from_start": ("plateau",),
    "plateau_at_chance": ("plateau",),
}


def _is_loss(name: str) -> bool:
    lowered = name.lower()
    return "loss" in lowered and not any(word in lowered for word in NOT_A_LOSS)


def _is_held_out(name: str) -> bool:
    return any(word in name.lower() for word in HELD_OUT)


def _pick(log: LossLog, preferred: tuple[str, ...], held_out: bool, exclude: str | None) -> str | None:
    """The first preferred name present, else the first loss-like name; series with enough points
    to classify win over shorter ones (HF's final one-point `train_loss` average loses to `loss`)."""
    lowered = {name.lower(): name for name in log.names}
    named = [lowered[p] for p in preferred if p in lowered]
    others = [n for n in log.names if _is_loss(n) and _is_held_out(n) == held_out and n not in named]
    candidates = [n for n in named + others if n != exclude]
    if not candidates:
        return None
    order = {name: rank for rank, name in enumerate(candidates)}
    return min(candidates, key=lambda n: (log.count(n) < MIN_POINTS, order[n]))


def pick_series(log: LossLog, loss: str | None = None, val: str | None = None) -> tuple[str, str | None]:
    """(training loss, validation loss or None); a name given but absent raises UsageError."""
    for name in (loss, val):
        if name is not None:
            log.columns(name)  # raises, listing the series that exist
    loss = loss or _pick(log, TRAIN_NAMES, held_out=False, exclude=val)
    if loss is None:
        raise UsageError(
            f"no series in {log.source} looks like a training loss (a name containing 'loss'): "
            f"pass the one to analyse (loss=NAME, --loss NAME). Series found: {', '.join(log.names)}"
        )
    return loss, val or _pick(log, VAL_NAMES, held_out=True, exclude=loss)


def analyze_curve(
    log: LossLog, loss: str | None = None, val: str | None = None, num_classes: int | None = None,
    metric: str | None = None,
) -> CurveReport:
    """Classify the training-loss curve of `log` (see the module docstring); `metric` names the metric
    series read beside the loss (default: the first metric-like series, one on the training split first)."""
    if num_classes is not None and num_classes < 2:
        raise UsageError(f"num_classes must be 2 or more (got {num_classes}): it sets the chance level ln k")
    loss, val = pick_series(log, loss, val)
    metric = pick_metric(log, metric, loss)
    steps, values = log.columns(loss)
    report = CurveReport(
        source=log.source, format=log.format, run=log.run, other_runs=list(log.other_runs), series=[_summary(log, name) for name in log.names],
        loss_series=loss, val_series=val, num_classes=num_classes, notes=list(log.notes),
    )
    if len(values) < MIN_POINTS:
        report.notes.append(f"{loss} has {len(values)} points: too little to classify (at least {MIN_POINTS}).")
        return report
    findings = [f for f in [find_nan(steps, values)] if f]
    trace = trace_of(steps, values)
    if trace.n < MIN_POINTS:
        report.notes.append(f"only {trace.n} finite points in {loss}: too few to classify the curve's shape.")
    else:
        report.spikes = find_spikes(trace)
        val_steps, val_values = log.columns(val) if val else ((), ())
        checks = (
            find_zero(trace), find_flat(trace), find_chance(trace, num_classes), find_plateau(trace),
            find_explosion(trace), find_oscillation(trace),
            find_gap(trace, val_steps, val_values) if val else None,
            find_val_too_good(trace, val_steps, val_values) if val else None,
            find_metric_flat(trace, metric, *log.columns(metric)) if metric else None,
        )
        findings += [f for f in checks if f] + spike_findings(report.spikes)
        fired = {f.observation for f in findings}
        hidden = {h for key in fired for h in HIDES.get(key, ())}
        findings = [f for f in findings if f.observation not in hidden]
        healthy = find_healthy(trace) if not findings else None
        findings += [healthy] if healthy else []
    if metric:
        report.metric_series = metric
        report.notes.append(f"{metric} read as the metric beside the loss.")
    findings.sort(key=lambda f: IMPORTANCE.index(f.observation))
    report.findings = findings
    report.observations = [f.observation for f in findings]
    return report


def _summary(log: LossLog, name: str) -> CurveSeries:
    steps, values = log.columns(name)
    finite = array("d", filter(math.isfinite, values))
    return CurveSeries(
        name=name,
        points=len(values),
        first_step=steps[0] if steps else None,
        last_step=steps[-1] if steps else None,
        first=values[0] if values else None,
        last=values[-1] if values else None,
        min=min(finite) if finite else None,
        non_finite=len(values) - len(finite),
    )
