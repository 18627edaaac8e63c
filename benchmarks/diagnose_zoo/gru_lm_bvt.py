"""A GRU language model whose head returns (B, V, T) logits for nn.CrossEntropyLoss with (B, T) targets shifted by one, the (N, C, d1) layout CrossEntropyLoss documents (issue 18's case); Adam at torch's default lr 1e-3."""

from __future__ import annotations

import torch
from torch import nn

from ._data import successor_sequences

VOCAB_SIZE = 50
SEQ_LEN = 12
BATCH_SIZE = 16
EMBED = 32
HIDDEN = 64


class GRULanguageModel(nn.Module):
    def __init__(self, vocab_size: int, embed: int, hidden: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed)
        self.gru = nn.GRU(embed, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(self.embedding(tokens))  # (B, T, H)
        return self.head(out).transpose(1, 2)  # (B, V, T): class dimension second, as CrossEntropyLoss wants


criterion = nn.CrossEntropyLoss()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    inputs, targets = batch
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    seq = successor_sequences(gen, VOCAB_SIZE, SEQ_LEN + 1, BATCH_SIZE)
    spec = {
        "model": GRULanguageModel(VOCAB_SIZE, EMBED, HIDDEN),
        "batch": (seq[:, :-1], seq[:, 1:]),  # next-token targets
        "loss_fn": criterion,
        "task": "lm",
        "vocab_size": VOCAB_SIZE,
        "seq_dim": 1,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
