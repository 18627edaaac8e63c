"""Kim 2014's CNN for sentence classification (embeddings, parallel Conv1d filters of widths 3/4/5, ReLU, max-over-time pooling, dropout 0.5, linear head), Adadelta (rho 0.95) as in the paper."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

VOCAB_SIZE = 60
NUM_CLASSES = 2
SEQ_LEN = 16
PER_CLASS = 12
PAD = 0


class KimCNN(nn.Module):
    def __init__(self, vocab_size: int, num_classes: int, embed: int = 24, filters: int = 16, widths=(3, 4, 5)):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed, padding_idx=PAD)
        self.convs = nn.ModuleList(nn.Conv1d(embed, filters, w) for w in widths)
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(filters * len(widths), num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embedding(tokens).transpose(1, 2)  # (B, embed, T) for Conv1d
        pooled = [F.relu(conv(x)).max(dim=2).values for conv in self.convs]  # max over time
        return self.fc(self.dropout(torch.cat(pooled, dim=1)))


def make_batch(gen: torch.Generator):
    """Sentiment-like: each class has cue words (some in bigrams); sentences are filler with a few cues, padded."""
    cues = 1 + torch.randperm(VOCAB_SIZE - 1, generator=gen)[: 6 * NUM_CLASSES].view(NUM_CLASSES, 6)
    labels = torch.arange(NUM_CLASSES).repeat_interleave(PER_CLASS)
    tokens = torch.randint(1, VOCAB_SIZE, (labels.numel(), SEQ_LEN), generator=gen)
    for i, label in enumerate(labels.tolist()):
        where = torch.randperm(SEQ_LEN - 4, generator=gen)[:3]
        tokens[i, where] = cues[label, torch.randint(0, 6, (3,), generator=gen)]
    lengths = torch.randint(SEQ_LEN - 4, SEQ_LEN + 1, (labels.numel(),), generator=gen)
    return tokens.masked_fill(torch.arange(SEQ_LEN)[None, :] >= lengths[:, None], PAD), labels


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adadelta(params, lr=1.0, rho=0.95, eps=1e-6)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    tokens, labels = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(tokens), labels)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    tokens, labels = make_batch(gen)
    spec = {
        "model": KimCNN(VOCAB_SIZE, NUM_CLASSES),
        "batch": (tokens, labels),
        "loss_fn": F.cross_entropy,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
