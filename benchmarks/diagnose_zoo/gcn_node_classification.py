"""tkipf/pygcn (Kipf & Welling 2017): GCN of two GraphConvolution layers (weight/bias uniform(+-1/sqrt(out)), support = X W, output = adj @ support + b), ReLU, dropout 0.5, log_softmax, nll_loss on the training nodes only; row-normalised features, renormalised adjacency D^-1/2 (A+I) D^-1/2 as in the paper; Adam lr 0.01 weight_decay 5e-4."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 3
NODES_PER_CLASS = 30
FEATURES = 150
HIDDEN = 16
TRAIN_PER_CLASS = 5


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
        self.bias = nn.Parameter(torch.FloatTensor(out_features)) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.mm(adj, support)
        return output + self.bias if self.bias is not None else output


class GCN(nn.Module):
    """The graph's normalised adjacency is a fixed buffer; forward(features) classifies every node."""

    def __init__(self, nfeat, nhid, nclass, dropout, adj):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout
        self.register_buffer("adj", adj)

    def forward(self, x):
        x = F.relu(self.gc1(x, self.adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, self.adj)
        return F.log_softmax(x, dim=1)


def masked_nll(output, targets):
    """pygcn: F.nll_loss(output[idx_train], labels[idx_train])."""
    labels, train_mask = targets
    return F.nll_loss(output[train_mask], labels[train_mask])


def make_graph(gen: torch.Generator):
    """A stochastic block model (p_in 0.15, p_out 0.01) with sparse bag-of-words features weakly tied to the class."""
    n = NUM_CLASSES * NODES_PER_CLASS
    labels = torch.arange(NUM_CLASSES).repeat_interleave(NODES_PER_CLASS)
    same = labels[:, None] == labels[None, :]
    prob = torch.where(same, torch.tensor(0.15), torch.tensor(0.01))
    upper = torch.triu(torch.rand(n, n, generator=gen) < prob, diagonal=1)
    a = (upper | upper.T).float()
    a_hat = a + torch.eye(n)
    d_inv_sqrt = a_hat.sum(1).pow(-0.5)
    adj = d_inv_sqrt[:, None] * a_hat * d_inv_sqrt[None, :]
    word_prob = torch.full((NUM_CLASSES, FEATURES), 0.04)
    block = FEATURES // NUM_CLASSES
    for c in range(NUM_CLASSES):
        word_prob[c, c * block:(c + 1) * block] = 0.10
    features = (torch.rand(n, FEATURES, generator=gen) < word_prob[labels]).float()
    features = features / features.sum(1, keepdim=True).clamp_min(1)  # pygcn normalize(features): row-normalise
    train_mask = torch.zeros(n, dtype=torch.bool)
    for c in range(NUM_CLASSES):
        idx = torch.nonzero(labels == c).squeeze(1)
        train_mask[idx[torch.randperm(len(idx), generator=gen)[:TRAIN_PER_CLASS]]] = True
    return features, labels, train_mask, adj


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    features, labels, train_mask, adj = make_graph(gen)
    spec = {
        "model": GCN(nfeat=FEATURES, nhid=HIDDEN, nclass=NUM_CLASSES, dropout=0.5, adj=adj),
        "batch": (features, (labels, train_mask)),  # the whole graph is the batch
        "loss_fn": masked_nll,
        "task": "classification",
        "num_classes": NUM_CLASSES,
    }
    if optimizer:
        spec["optimizer"] = lambda params: torch.optim.Adam(params, lr=0.01, weight_decay=5e-4)
    return spec
