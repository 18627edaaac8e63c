"""Stand-ins with the duck-typed interfaces of Hugging Face models, outputs and collated batches, so the
checks' HF handling is tested without transformers installed."""

from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn
import torch.nn.functional as F

from . import builders as b


class ModelOutput(OrderedDict):
    """Like transformers.utils.ModelOutput: a dict whose None fields are absent, read as attributes too."""

    def __init__(self, **fields):
        super().__init__((k, v) for k, v in fields.items() if v is not None)

    def __getattr__(self, name):
        return self.get(name)


class CausalLMForTests(nn.Module):
    """GPT-2's calling convention: input_ids, attention_mask, labels=input_ids; shifts inside its own loss."""

    def __init__(self, vocab: int = 16, returns: str = "output") -> None:
        super().__init__()
        self.body = b.TinyLM(vocab=vocab)
        self.returns = returns

    def forward(self, input_ids, attention_mask=None, labels=None):
        logits = self.body(input_ids)
        loss = None
        if labels is not None:
            shifted = logits[:, :-1].reshape(-1, logits.shape[-1])
            loss = F.cross_entropy(shifted, labels[:, 1:].reshape(-1), ignore_index=-100)
        if self.returns == "dict":
            return {"loss": loss, "logits": logits}
        if self.returns == "tuple":  # return_dict=False
            return (loss, logits) if loss is not None else (logits,)
        return ModelOutput(loss=loss, logits=logits)


def collated_lm_batch(n: int = 16, length: int = 12, vocab: int = 16, seed: int = 0) -> dict:
    """What DataCollatorForLanguageModeling(mlm=False) returns: labels are a copy of input_ids."""
    g = torch.Generator().manual_seed(seed)
    start = torch.randint(0, vocab, (n, 1), generator=g)
    ids = (start + torch.arange(length)) % vocab
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}


def hf_lm_spec(returns: str = "output", **overrides) -> dict:
    torch.manual_seed(0)
    spec = dict(model=CausalLMForTests(returns=returns), batch=collated_lm_batch(), task="lm", vocab_size=16,
                seq_dim=1, optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))
    spec.update(overrides)
    return spec
