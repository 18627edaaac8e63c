"""Entry point in the user's interpreter: build the spec, load the checkpoint, probe, write the report.

Invoked by launch.py as `python -c BOOTSTRAP <diagnostics_dir> <target> <events_file> <options_json>`;
writes the events ../checks/runner.py writes (started, progress, then one report or error), with the
stages build, spec, checkpoint and run.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from typing import Any

from ..checks.result import user_traceback
from ..checks.runner import Events, load_target

_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # frames of the diagnostics are not the user's


def main(argv: list[str]) -> int:
    target, events_path, options = argv[0], argv[1], json.loads(argv[2])
    events = Events(events_path)
    events.emit(event="started", pid=os.getpid(), python=sys.executable)
    try:
        import torch
    except ImportError as exc:
        events.emit(event="error", stage="import", error={"type": "ImportError", "message": str(exc), "frames": []})
        return 1
    from ..checks.spec import SpecError, as_spec

    try:
        spec = load_target(target, options.get("roots"))()
    except Exception as exc:
        events.emit(event="error", stage="build", error=user_traceback(exc, _OWN_DIR))
        return 1
    try:
        spec = as_spec(spec)
        model, loss_of, device = setup(spec, options.get("device"))
    except SpecError as exc:
        events.emit(event="error", stage="spec", error={"type": "SpecError", "message": str(exc), "frames": []})
        return 1
    from .checkpoint import CheckpointError, load_checkpoint

    if options.get("checkpoint"):
        try:
            load_checkpoint(model, options["checkpoint"], device)
        except CheckpointError as exc:
            events.emit(event="error", stage="checkpoint",
                        error={"type": "CheckpointError", "message": str(exc), "frames": []})
            return 1
    from .probe import probe

    try:
        report = probe(model, loss_of, seed=options.get("seed", 0), points=options["points"], grid=options["grid"],
                       span=options["span"], directions=options["directions"],
                       power_iterations=options["power_iterations"], budget_s=options["budget_s"],
                       train=options.get("mode", "train") == "train",
                       progress=lambda i, n, stage: events.emit(event="progress", index=i, total=n, check=stage))
    except Exception as exc:
        events.emit(event="error", stage="run", error=user_traceback(exc, _OWN_DIR))
        return 1
    report.update(device=str(device), environment={"torch": torch.__version__, "python": platform.python_version()})
    events.emit(event="report", report=report)
    return 0


def setup(spec: Any, device_name: str | None) -> tuple[Any, Any, Any]:
    """(model on its device, loss_of(model) on the spec's batch, the device)."""
    from ..checks.batch_format import split_batch
    from ..checks.model_loss import computes_own_loss, loss_in
    from ..checks.session import _model_device, _usable_device
    from ..checks.tensors import call_model, to_device

    device = _usable_device(device_name or spec.device or _model_device(spec.model))
    model = spec.model.to(device)
    inputs, targets = to_device(split_batch(spec.batch), device)
    own_loss = computes_own_loss(spec.loss_fn)

    def loss_of(m: Any) -> Any:
        output = call_model(m, inputs)
        return loss_in(output) if own_loss else spec.loss_fn(output, targets)

    return model, loss_of, device
