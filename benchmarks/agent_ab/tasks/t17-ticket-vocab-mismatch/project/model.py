"""Bag-of-embeddings ticket classifier."""
import torch
from torch import nn


class TicketClassifier(nn.Module):
    def __init__(self, vocab_size, num_classes, embed_dim=48, hidden=64, dropout=0.1, pad_id=0):
        super().__init__()
        self.pad_id = pad_id
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
        self.mlp = nn.Sequential(nn.Linear(2 * embed_dim, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, num_classes))

    def forward(self, ids):
        mask = (ids != self.pad_id).unsqueeze(-1).float()
        e = self.embed(ids)
        mean = (e * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        mx = e.masked_fill(mask == 0, -1e4).max(1).values
        return self.mlp(torch.cat([mean, mx], dim=-1))


def build_model(cfg, num_classes, pad_id=0):
    m = cfg["model"]
    return TicketClassifier(cfg["data"]["vocab_size"], num_classes, m["embed_dim"], m["hidden"],
                            m["dropout"], pad_id)
