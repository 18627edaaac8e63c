"""What the Hugging Face stand-ins share: transformers' ModelOutput contract, without transformers.

`transformers` is not installed here, so the HF-style setups are written out by hand with the
same call contract: `model(input_ids=..., attention_mask=..., labels=...)` returns an output
whose `.loss` is computed inside the model and whose `.logits` are the scores.
"""

from __future__ import annotations

from collections import OrderedDict

import torch


class ModelOutput(OrderedDict):
    """Like transformers.utils.ModelOutput: a dict whose None fields are absent, readable as attributes."""

    def __init__(self, **fields):
        super().__init__((k, v) for k, v in fields.items() if v is not None)

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            return None

    def to_tuple(self) -> tuple:
        return tuple(self.values())


def extended_attention_mask(attention_mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """(B, T) 1/0 mask -> (B, 1, 1, T) additive mask, as get_extended_attention_mask builds it."""
    mask = attention_mask[:, None, None, :].to(dtype)
    return (1.0 - mask) * torch.finfo(dtype).min
