"""He et al. 2017's NeuMF (a GMF branch of elementwise user x item embeddings and an MLP tower, fused by a linear layer to one logit per pair, binary cross-entropy on implicit feedback with sampled negatives), Adam 1e-3."""

from __future__ import annotations

import torch
from torch import nn

USERS, ITEMS = 24, 32
FACTORS = 8
PAIRS = 128


class NeuMF(nn.Module):
    def __init__(self, users: int, items: int, factors: int, layers=(32, 16, 8)):
        super().__init__()
        self.embed_user_gmf = nn.Embedding(users, factors)
        self.embed_item_gmf = nn.Embedding(items, factors)
        self.embed_user_mlp = nn.Embedding(users, layers[0] // 2)
        self.embed_item_mlp = nn.Embedding(items, layers[0] // 2)
        self.mlp = nn.Sequential(*[m for i in range(len(layers) - 1)
                                   for m in (nn.Dropout(0.1), nn.Linear(layers[i], layers[i + 1]), nn.ReLU())])
        self.predict_layer = nn.Linear(factors + layers[-1], 1)
        for e in (self.embed_user_gmf, self.embed_item_gmf, self.embed_user_mlp, self.embed_item_mlp):
            nn.init.normal_(e.weight, std=0.01)
        for m in self.mlp:
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
        nn.init.kaiming_uniform_(self.predict_layer.weight, a=1, nonlinearity="sigmoid")

    def forward(self, user: torch.Tensor, item: torch.Tensor) -> torch.Tensor:
        gmf = self.embed_user_gmf(user) * self.embed_item_gmf(item)
        mlp = self.mlp(torch.cat([self.embed_user_mlp(user), self.embed_item_mlp(item)], dim=-1))
        return self.predict_layer(torch.cat([gmf, mlp], dim=-1)).view(-1)  # (B,) logits


def make_interactions(gen: torch.Generator):
    """Users like items whose hidden taste vector agrees with theirs; half the pairs are sampled negatives."""
    taste_u = torch.randn(USERS, 3, generator=gen)
    taste_i = torch.randn(ITEMS, 3, generator=gen)
    affinity = taste_u @ taste_i.T
    liked = affinity > affinity.quantile(0.7)
    pos = torch.nonzero(liked)[torch.randperm(int(liked.sum()), generator=gen)[: PAIRS // 2]]
    neg = torch.nonzero(~liked)[torch.randperm(int((~liked).sum()), generator=gen)[: PAIRS // 2]]
    pairs = torch.cat([pos, neg])
    labels = torch.cat([torch.ones(len(pos)), torch.zeros(len(neg))])
    order = torch.randperm(len(pairs), generator=gen)
    return (pairs[order, 0], pairs[order, 1]), labels[order]


loss_function = nn.BCEWithLogitsLoss()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=0.001)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    (user, item), label = batch
    model.zero_grad()
    prediction = model(user, item)
    loss = loss_function(prediction, label)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    inputs, labels = make_interactions(gen)
    spec = {
        "model": NeuMF(USERS, ITEMS, FACTORS),
        "batch": (inputs, labels),
        "loss_fn": loss_function,
        "task": "binary",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
