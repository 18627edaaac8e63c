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
