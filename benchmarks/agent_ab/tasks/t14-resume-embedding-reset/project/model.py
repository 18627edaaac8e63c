"""Bag-of-embeddings intent classifier: embedding -> pooled MLP backbone -> head."""
from __future__ import annotations

import torch
from torch import nn

from config import Config


class IntentClassifier(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int, hidden: int, num_classes: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.backbone = nn.Sequential(
            nn.Linear(embed_dim, hidden), nn.GELU(), nn.LayerNorm(hidden),
            nn.Linear(hidden, hidden), nn.GELU(),
        )
        self.head = nn.Linear(hidden, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        mask = (tokens != 0).unsqueeze(-1).float()
        pooled = (self.embedding(tokens) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(self.backbone(pooled))


def build_model(cfg: Config) -> IntentClassifier:
    return IntentClassifier(cfg.data.vocab_size, cfg.model.embed_dim, cfg.model.hidden,
                            cfg.data.num_classes)
