"""Bag-of-embeddings classifier with masked mean pooling."""
import torch
from torch import nn


class KeywordClassifier(nn.Module):
    def __init__(self, vocab_size, num_classes, embed_dim=32, hidden_dim=64,
                 dropout=0.1, pad_id=0):
        super().__init__()
        self.pad_id = pad_id
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
        self.mlp = nn.Sequential(
            nn.Linear(embed_dim, hidden_dim),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden_dim, hidden_dim),
            nn.ReLU(),
            nn.Linear(hidden_dim, num_classes),
        )

    def forward(self, tokens, lengths):
        mask = (tokens != self.pad_id).unsqueeze(-1).float()
        emb = self.embed(tokens) * mask
        pooled = emb.sum(1) / lengths.clamp(min=1).unsqueeze(-1).float()
        return self.mlp(pooled)


def build_model(cfg):
    d, m = cfg["data"], cfg["model"]
    return KeywordClassifier(d["vocab_size"], d["num_classes"], m["embed_dim"],
                             m["hidden_dim"], m["dropout"])
