"""Bag-of-embeddings ticket classifier."""
from __future__ import annotations

from typing import Dict

import torch
from torch import nn


class TicketClassifier(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int, num_classes: int, dropout: float = 0.0):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, embed_dim, mode="mean", padding_idx=0)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(embed_dim, num_classes)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.dropout(self.embed(ids)))


def build_model(cfg: Dict, vocab_size: int, num_classes: int) -> TicketClassifier:
    m = cfg["model"]
    return TicketClassifier(vocab_size, m["embed_dim"], num_classes, m.get("dropout", 0.0))
