"""fastai's TabularModel (an embedding per categorical column with embedding dropout, BatchNorm1d on the continuous columns, LinBnDrop blocks, CrossEntropyLossFlat), fastai's Adam (betas (0.9, 0.99), eps 1e-5, decoupled weight decay 0.01) at 1e-3."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

CARDINALITIES = (7, 12, 4)  # e.g. weekday, month, store type
CONTINUOUS = 5
NUM_CLASSES = 2
COUNT = 96


def emb_sz_rule(n_cat: int) -> int:
    """fastai's rule of thumb for an embedding's width."""
    return min(600, round(1.6 * n_cat ** 0.56))


class LinBnDrop(nn.Sequential):
    def __init__(self, n_in: int, n_out: int, p: float = 0.0):
        super().__init__(nn.BatchNorm1d(n_in), nn.Dropout(p), nn.Linear(n_in, n_out, bias=False), nn.ReLU(inplace=True))


class TabularModel(nn.Module):
    def __init__(self, cardinalities, n_cont: int, out_sz: int, layers=(64, 32), embed_p: float = 0.05, ps=(0.1, 0.1)):
        super().__init__()
        self.embeds = nn.ModuleList(nn.Embedding(n + 1, emb_sz_rule(n + 1)) for n in cardinalities)  # +1: #na#
        self.emb_drop = nn.Dropout(embed_p)
        self.bn_cont = nn.BatchNorm1d(n_cont)
        n_emb = sum(e.embedding_dim for e in self.embeds)
        sizes = [n_emb + n_cont, *layers]
        self.layers = nn.Sequential(*[LinBnDrop(sizes[i], sizes[i + 1], p) for i, p in enumerate(ps)],
                                    nn.Linear(sizes[-1], out_sz))
        for e in self.embeds:  # fastai's trunc_normal_(std=0.01) embedding init
            nn.init.trunc_normal_(e.weight, std=0.01)

    def forward(self, x_cat: torch.Tensor, x_cont: torch.Tensor) -> torch.Tensor:
        x = self.emb_drop(torch.cat([e(x_cat[:, i]) for i, e in enumerate(self.embeds)], 1))
        x = torch.cat([x, self.bn_cont(x_cont)], 1)
        return self.layers(x)


def make_data(gen: torch.Generator):
    """The label depends on one categorical column's level and on two continuous columns."""
    x_cat = torch.stack([torch.randint(1, n + 1, (COUNT,), generator=gen) for n in CARDINALITIES], 1)
    x_cont = torch.randn(COUNT, CONTINUOUS, generator=gen) * 3 + 10  # raw: BatchNorm1d standardises them
    level_effect = torch.randn(CARDINALITIES[1] + 1, generator=gen) * 1.5
    score = level_effect[x_cat[:, 1]] + (x_cont[:, 0] - 10) / 3 - (x_cont[:, 2] - 10) / 3
    return (x_cat, x_cont), (score > score.median()).long()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.99), eps=1e-5, weight_decay=0.01)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    (x_cat, x_cont), y = batch
    loss = F.cross_entropy(model(x_cat, x_cont), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    inputs, y = make_data(gen)
    spec = {
        "model": TabularModel(CARDINALITIES, CONTINUOUS, NUM_CLASSES),
        "batch": (inputs, y),
        "loss_fn": F.cross_entropy,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
