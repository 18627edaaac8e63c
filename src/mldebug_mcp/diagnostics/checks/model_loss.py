"""Models that compute their own loss (Hugging Face style): the `loss_fn="model"` sentinel.

A Hugging Face model given `labels=` returns an output whose `.loss` (or `["loss"]`) is the training
loss. A spec that says `loss_fn="model"`, or leaves loss_fn out, takes that loss instead of calling
loss_fn(outputs, targets); the labels then travel inside the inputs (a dict batch's "labels" key).
"""

from __future__ import annotations

from typing import Any

MODEL_LOSS = "model"


def computes_own_loss(loss_fn: Any) -> bool:
    """True when the spec leaves the loss to the model (loss_fn "model" or None)."""
    return loss_fn is None or (isinstance(loss_fn, str) and loss_fn == MODEL_LOSS)


def loss_in(output: Any) -> Any:
    """The loss the model returned: `.loss`, `["loss"]`, or the scalar first item of a tuple
    (`return_dict=False` puts the loss first when labels are given)."""
    import torch

    if isinstance(output, dict):
        loss = output.get("loss")
    elif isinstance(output, (tuple, list)):
        loss = output[0] if output and isinstance(output[0], torch.Tensor) and output[0].ndim == 0 else None
    else:
        loss = getattr(output, "loss", None)
    if loss is None:
        raise TypeError(
            f"loss_fn is {MODEL_LOSS!r} (the model computes its own loss) but the model returned "
            f"{type(output).__name__} without a loss; pass the labels in the inputs (a dict batch with a "
            "'labels' key, as Hugging Face collators build it) or give loss_fn(outputs, targets)")
    return loss
