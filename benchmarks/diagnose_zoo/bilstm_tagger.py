"""Lample et al. 2016's BiLSTM tagger without the CRF (word embeddings with padding_idx, bidirectional batch-first LSTM, dropout, per-token linear scores (B, T, C), cross-entropy over padded positions ignored with -100), SGD with gradient clipping 5.0 as in the paper (its lr 0.01 on per-sentence summed losses, scaled to 1.0 for a token mean over a batch of 16)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

VOCAB_SIZE = 40
NUM_TAGS = 5
SEQ_LEN = 12
BATCH_SIZE = 16
PAD = 0
IGNORE = -100


class BiLSTMTagger(nn.Module):
    def __init__(self, vocab_size: int, num_tags: int, embed: int = 24, hidden: int = 32):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed, padding_idx=PAD)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(0.5)
        self.hidden2tag = nn.Linear(2 * hidden, num_tags)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.dropout(self.embedding(tokens)))
        return self.hidden2tag(self.dropout(out))  # (B, T, num_tags)


def loss_fn(scores: torch.Tensor, tags: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(scores.transpose(1, 2), tags, ignore_index=IGNORE)  # class dimension second


def make_batch(gen: torch.Generator):
    """Each word has a base tag; a word right after a "trigger" word takes the trigger's tag (context matters)."""
    base = torch.randint(0, NUM_TAGS, (VOCAB_SIZE,), generator=gen)
    tokens = torch.randint(1, VOCAB_SIZE, (BATCH_SIZE, SEQ_LEN), generator=gen)
    tags = base[tokens]
    triggers = tokens[:, :-1] < 6
    tags[:, 1:] = torch.where(triggers, base[tokens[:, :-1]], tags[:, 1:])
    lengths = torch.randint(SEQ_LEN // 2, SEQ_LEN + 1, (BATCH_SIZE,), generator=gen)
    padding = torch.arange(SEQ_LEN)[None, :] >= lengths[:, None]
    return tokens.masked_fill(padding, PAD), tags.masked_fill(padding, IGNORE)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=1.0)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    tokens, tags = batch
    model.zero_grad()
    loss = loss_fn(model(tokens), tags)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    tokens, tags = make_batch(gen)
    spec = {
        "model": BiLSTMTagger(VOCAB_SIZE, NUM_TAGS),
        "batch": (tokens, tags),
        "loss_fn": loss_fn,
        "task": "classification",
        "num_classes": NUM_TAGS,
        "seq_dim": 1,
        "causal": False,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
