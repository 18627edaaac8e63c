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
from .result import CheckResult, user_traceback
from .session import Session
from .tensors import call_model, primary, tensors_in

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
            primary(output)
            stage = LOSS_STAGES[s.model_loss]
            s.output_loss(output, s.batch[1])
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:
        error = user_traceback(exc, _OWN_DIR)
        s.forward_failed = stage != LOSS_STAGES[s.model_loss]
        where = f" in module {active[-1]}" if stage == "the model's forward" and active else ""
        shapes = {path: list(t.shape) for path, t in tensors_in({"inputs": s.batch[0], "targets": s.batch[1]})}
        return first.result(
            FAIL, f"{stage} raised {error['type']}{where} on the spec's batch: {error['message']}", error=error,
            measured={"stage": stage, "module": active[-1] if where else None, "batch_shapes": shapes},
            details=[f"{path}: {shape}" for path, shape in shapes.items()],
            meaning="Every check runs the model and the loss on this batch, so none can run until this call works.",
            next_test="Compare the batch shapes above with what the named module (or the loss) expects; the user-code "
                      "frames show the call that led there. Then call model(inputs) once by hand.")
    finally:
        for h in handles:
            h.remove()
    return None


def skipped_after(check: Check, failed: str) -> CheckResult:
    return check.skip(f"not run: the forward pass or loss raised on the spec's batch (see {failed})")


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
