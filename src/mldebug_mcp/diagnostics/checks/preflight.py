"""Before any check: run the model and the loss once on the spec's batch.

Every check calls the model on this batch, so a forward (or loss) that raises there, a shape
mismatch say, would fail every check with the same traceback. It is reported once instead: on
the first selected check, with the batch's shapes, the module that raised and the user's frames,
the other checks skipped.
"""

from __future__ import annotations

import os
from typing import Any

from .base import FAIL, Check
from .batch_format import split_batch
from .device import is_device_assert, is_device_mismatch, mismatch_hint, synchronize
from .model_loss import loss_in
from .result import CheckResult, user_traceback
from .session import Session
from .tensors import call_model, tensors_in, to_device

_OWN_DIR = os.path.dirname(os.path.abspath(__file__))
LOSS_STAGES = {True: "the model's own loss", False: "loss_fn"}  # by Session.model_loss


def forward_failure(s: Session, first: Check) -> CheckResult | None:
    """None when forward and loss run on the spec's batch; else the one failing result, under `first`.

    Sets s.forward_failed when the model itself could not produce logits (batch_sanity then skips
    its own forward); a loss that raises leaves the logits to be checked."""
    import torch

    stage = "the model's forward"
    s.seeded()
    model = s.fresh_model(train=True)
    active: list[str] = []  # the modules whose forward is running, outermost first
    handles = _track(model, active)
    try:
        with torch.no_grad():
            output = call_model(model, s.batch[0])
            stage = "reading the logits from the model's output"
            s.primary(output)
            stage = LOSS_STAGES[s.model_loss]
            s.output_loss(output, s.batch[1])
            synchronize(s.device)  # an asynchronous device-side assert of the loss surfaces here
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:
        error = user_traceback(exc, _OWN_DIR)
        s.forward_failed = stage != LOSS_STAGES[s.model_loss]
        where = f" in module {active[-1]}" if stage == "the model's forward" and active else ""
        shapes = {path: list(t.shape) for path, t in tensors_in({"inputs": s.batch[0], "targets": s.batch[1]})}
        if is_device_assert(error["message"]):
            s.context_lost = first.id
            told = f"fired a CUDA device-side assert on {s.device} (the GPU's context is now unusable); " + _on_cpu(s)
        else:
            told = f"raised {error['type']}{where} on the spec's batch: {error['message']}"
            if s.moved and is_device_mismatch(error["message"]):
                told += f"; {mismatch_hint(stage, s.device)}"
        return first.result(
            FAIL, f"{stage} {told}", error=error,
            measured={"stage": stage, "module": active[-1] if where else None, "batch_shapes": shapes},
            details=[f"{path}: {shape}" for path, shape in shapes.items()],
            meaning="Every check runs the model and the loss on this batch, so none can run until this call works.",
            next_test="Compare the batch shapes above with what the named module (or the loss) expects; the user-code "
                      "frames show the call that led there. Then call model(inputs) once by hand.")
    finally:
        for h in handles:
            h.remove()
    return _moved_step_failure(s, first)


def _moved_step_failure(s: Session, first: Check) -> CheckResult | None:
    """On a device the spec was not built on, the spec's train_step may make tensors where the spec was
    built (torch.full((b,), 1.0) has no device): one step says so once, instead of every training check
    failing on it as if the model could not learn."""
    if not s.moved or s.spec.train_step is None:
        return None
    s.seeded()
    model = s.fresh_model(train=True)
    try:
        s.user_step(model, s.batch, s.make_optimizer(model))
        synchronize(s.device)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:
        error = user_traceback(exc, _OWN_DIR)
        if is_device_assert(error["message"]):
            s.context_lost = first.id
            return first.result(
                FAIL, f"the spec's train_step fired a CUDA device-side assert on {s.device} (the GPU's context is now "
                      f"unusable): run diagnose with --device cpu, where the same step raises a readable error",
                error=error, measured={"stage": "train_step", "device": str(s.device)},
                meaning="A device-side assert ends every later GPU call of this process, so no check can run.",
                next_test="Run with --device cpu; the error names the operation (an index out of range, BCE "
                          "given values outside [0, 1]).")
        if not is_device_mismatch(error["message"]):
            return None  # any other failure of the step is the training checks' to report
        s.forward_failed = False
        return first.result(
            FAIL, f"the spec's train_step raised {error['type']} on {s.device}: {error['message']}; "
                  f"{mismatch_hint('train_step', s.device)}", error=error,
            measured={"stage": "train_step", "device": str(s.device)},
            meaning="Every training check runs the spec's train_step on this device, so none can run until it "
                    "makes its tensors on the batch's device.",
            next_test="Find the tensor in the frames above (a label tensor, noise, a mask) and build it with "
                      "device=batch.device; or run diagnose on the device the spec was written for.")
    return None


def _on_cpu(s: Session) -> str:
    """What the same forward and loss say on CPU, where errors are readable (the spec's own model and batch,
    which diagnose never moves, on a copy)."""
    import copy

    try:
        model = copy.deepcopy(s.spec.model).cpu()
        inputs, targets = to_device(split_batch(s.spec.batch), "cpu")
        output = call_model(model, inputs)
        loss_in(output) if s.model_loss else s.spec.loss_fn(output, targets)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # the readable error the GPU could not give
        error = user_traceback(exc, _OWN_DIR)
        return f"on CPU the same call raises {error['type']}: {error['message']}"
    return "on CPU the same call runs: rerun diagnose with --device cpu to compare"


def skipped_after(check: Check, failed: str) -> CheckResult:
    return check.skip(f"not run: the forward pass, the loss or the train step raised on the spec's batch (see {failed})")


def _track(model: Any, active: list[str]) -> list[Any]:
    """Hooks keeping `active` = the chain of modules inside whose forward the code now runs; a forward
    that raises never pops, so its module stays last."""
    def leave(*_: Any) -> None:  # a forward hook that returned a value would replace the output
        active.pop()

    handles = []
    for name, module in model.named_modules():
        label = f"{name or '(model)'} ({type(module).__name__})"
        handles.append(module.register_forward_pre_hook(lambda *_, label=label: active.append(label)))
        handles.append(module.register_forward_hook(leave))
    return handles
