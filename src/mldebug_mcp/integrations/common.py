"""What both callbacks share: run the cheap checks safely inside training, read an in-memory loss history."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

# The checks that need no training curve: a few forward/backward passes and at most three steps.
CHEAP_CHECKS = ("batch_sanity", "loss_at_init", "gradient_flow", "parameter_updates", "activations",
                "train_eval_modes")
Log = Callable[[str], None]


def install_hint(framework: str, package: str) -> ImportError:
    return ImportError(f"mldebug_mcp.integrations.{framework}.MldebugCallback needs {package}, which is not installed "
                       f"in this environment: pip install {package} (mldebug-mcp itself does not depend on it)")


@contextlib.contextmanager
def never_raises(what: str) -> Iterator[None]:
    """A failure inside the callback becomes a warning: training goes on."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - whatever the checks hit must not stop the user's training
        warnings.warn(f"mldebug-mcp: {what} failed ({type(exc).__name__}: {exc}); training goes on",
                      RuntimeWarning, stacklevel=3)


def check_first_batch(spec: dict[str, Any], checks: Sequence[str], seed: int, log: Log) -> Any:
    """Run `checks` on the spec in this process without touching training's state: the random number
    generators are forked and the model's train/eval mode is put back (the checks train copies of the
    model and restore its weights). Logs a short report; returns the DiagnosticReport."""
    import torch

    from ..render.diagnose import report_summary
    from ..services.diagnose import diagnose

    model = spec["model"]
    mode = model.training
    devices = sorted({p.device.index or 0 for p in model.parameters() if p.device.type == "cuda"})
    try:
        with torch.random.fork_rng(devices=devices):
            report = diagnose(spec, seed=seed, steps=10, checks=list(checks))
    finally:
        model.train(mode)
    log(report_summary(report))
    return report


def read_curve(records: Sequence[Mapping[str, Any]], source: str, num_classes: int | None, log: Log) -> Any:
    """The curve report of the history, logged in a few lines; None when no series looks like a loss yet."""
    from ..errors import UsageError
    from ..services.curves import curve_from_records

    try:
        report = curve_from_records(records, source, num_classes)
    except UsageError:  # nothing named like a loss logged (yet)
        return None
    log(curve_summary(report))
    return report


def curve_summary(report: Any) -> str:
    lines = [f"mldebug-mcp loss curve ({report.loss_series}"
             + (f", validation {report.val_series}" if report.val_series else "") + "): "
             + (", ".join(report.observations) or "no pattern recognised")]
    lines += [f"  {f.observation}: {f.summary}" for f in report.findings[:4]]
    lines += [f"  note: {note}" for note in report.notes[:2]]
    return "\n".join(lines)
