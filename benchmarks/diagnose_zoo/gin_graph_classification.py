"""Xu et al. 2019's GIN for graph classification (as in PyG's GIN example: MLPs with BatchNorm on (1 + eps) h + sum of neighbours, sum readout of every layer, dropout 0.5) on dense batched adjacency (B, N, N), Adam 1e-2 as in the paper."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 3
NODES = 10
PER_CLASS = 8
FEATURES = 4


class GINConv(nn.Module):
    def __init__(self, mlp: nn.Module, train_eps: bool = True):
        super().__init__()
        self.mlp = mlp
        self.eps = nn.Parameter(torch.zeros(1)) if train_eps else 0.0

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:  # x (B, N, F), adj (B, N, N)
        h = (1 + self.eps) * x + adj @ x  # sum aggregation over neighbours
        B, N, _ = h.shape
        return self.mlp(h.reshape(B * N, -1)).reshape(B, N, -1)  # node-wise MLP (BatchNorm over nodes)


def mlp(inp: int, out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inp, out), nn.BatchNorm1d(out), nn.ReLU(), nn.Linear(out, out), nn.ReLU())


class GIN(nn.Module):
    def __init__(self, in_channels: int, hidden: int, out_channels: int, num_layers: int = 3):
        super().__init__()
        self.convs = nn.ModuleList(GINConv(mlp(in_channels if i == 0 else hidden, hidden)) for i in range(num_layers))
        self.lin1 = nn.Linear(in_channels + num_layers * hidden, hidden)
        self.lin2 = nn.Linear(hidden, out_channels)

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        readouts = [x.sum(dim=1)]  # sum pooling of every layer's node states (the paper's readout)
        for conv in self.convs:
            x = conv(x, adj)
            readouts.append(x.sum(dim=1))
        h = F.relu(self.lin1(torch.cat(readouts, dim=-1)))
        h = F.dropout(h, p=0.5, training=self.training)
        return self.lin2(h)


def make_graphs(gen: torch.Generator):
    """Rings, stars and two-cluster graphs with a few random extra edges, nodes in random order."""
    adjs, labels = [], []
    for c in range(NUM_CLASSES):
        for _ in range(PER_CLASS):
            a = torch.zeros(NODES, NODES)
            idx = torch.arange(NODES)
            if c == 0:
                a[idx, (idx + 1) % NODES] = 1
            elif c == 1:
                a[0, 1:] = 1
            else:
                half = NODES // 2
                a[:half, :half] = (torch.rand(half, half, generator=gen) < 0.7).float()
                a[half:, half:] = (torch.rand(NODES - half, NODES - half, generator=gen) < 0.7).float()
                a[0, half] = 1
            extra = torch.randint(0, NODES, (2, 2), generator=gen)
            a[extra[0], extra[1]] = 1
            a = ((a + a.T) > 0).float()
            a.fill_diagonal_(0)
            perm = torch.randperm(NODES, generator=gen)
            adjs.append(a[perm][:, perm])
            labels.append(c)
    adj = torch.stack(adjs)
    degree = adj.sum(-1, keepdim=True)
    x = torch.cat([torch.ones_like(degree), degree / NODES, torch.randn(len(labels), NODES, FEATURES - 2, generator=gen)], -1)
    return (x, adj), torch.tensor(labels)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=0.01)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    (x, adj), y = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x, adj), y)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    inputs, labels = make_graphs(gen)
    spec = {
        "model": GIN(FEATURES, 32, NUM_CLASSES),
        "batch": (inputs, labels),
        "loss_fn": F.cross_entropy,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
