"""The two batch layouts a spec may give, and the one the checks use.

A pair `(inputs, targets)` is used as is. A dict, as Hugging Face collators build it
(`{"input_ids": ..., "attention_mask": ..., "labels": ...}`), is passed whole to the model as
keywords, labels included, so that a model computing its own loss gets them; its labels are also
the targets the checks read (class balance, shuffled-label baselines).
"""

from __future__ import annotations

from typing import Any

LABEL_KEYS = ("labels", "label", "label_ids")  # Hugging Face's names, in the order its collators use them


def split_batch(batch: Any) -> tuple[Any, Any]:
    """(inputs, targets) of a pair or of a dict batch (targets None when the dict holds no labels)."""
    if isinstance(batch, dict):
        key = next((k for k in LABEL_KEYS if k in batch), None)
        return batch, batch[key] if key is not None else None
    inputs, targets = batch
    return inputs, targets


def as_given(pair: tuple[Any, Any], dict_batch: bool) -> Any:
    """A (possibly altered) pair back in the layout the spec gave, for the user's own train_step."""
    return pair[0] if dict_batch else pair


def pairwise_tensor(s: Any) -> str | None:
    """The name and shape of a tensor that relates the batch's rows pairwise (an N x N adjacency of a graph
    whose nodes are the batch, as GCN code trains a whole graph at once), or None. Its rows are then not
    independent samples: a subset of them cannot be run alone, and each row may read the others.

    Two things must hold: an N x N buffer, plain tensor attribute or input tensor (not a weight: a square
    layer of the batch's width is no graph), and the model refusing the first half of the batch (a causal
    mask that happens to be N x N runs on any batch)."""
    import torch

    from .tensors import batch_size, call_model, take, tensors_in

    if "pairwise_tensor" in s.memo:
        return s.memo["pairwise_tensor"]
    inputs = s.batch[0]
    n = batch_size(inputs)
    model = s.spec.model
    held = [*model.named_buffers(), *((k, v) for k, v in vars(model).items() if isinstance(v, torch.Tensor)),
            *tensors_in(inputs, "inputs")]
    found = next((f"{name} {tuple(t.shape)}" for name, t in held if n > 2 and tuple(t.shape) == (n, n)), None)
    if found is not None:
        half = n // 2
        try:
            with torch.no_grad():
                rows = s.primary(call_model(s.fresh_model(train=False), take(inputs, slice(0, half))))
            found = found if getattr(rows, "shape", (half,))[:1] != (half,) else None
        except Exception:  # noqa: BLE001 - refusing a subset of the rows is what a graph batch does
            pass
    s.memo["pairwise_tensor"] = found
    return found
