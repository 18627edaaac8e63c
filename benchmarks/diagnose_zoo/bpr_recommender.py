"""BPR-MF (Rendle et al. 2009, LearnBPR) with MyMediaLite BPRMF's defaults: user factors W, item factors H and item biases, x_uij = b_i - b_j + <w_u, h_i - h_j> on bootstrap-sampled (user, positive item, negative item) triples, loss summed over the triples = sum(-log sigmoid(x_uij)) + the L2 terms reg_u |w_u|^2 + reg_i |h_i|^2 + reg_j |h_j|^2 (0.0025, 0.0025, 0.00025) of the sampled rows (halved, as in the SGD update), factors init N(0, 0.1), plain SGD lr 0.05."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_USERS, NUM_ITEMS, NUM_FACTORS, TRUE_RANK = 96, 160, 10, 3
BATCH = 128
REG_U, REG_I, REG_J, BIAS_REG = 0.0025, 0.0025, 0.00025, 0.0
LEARN_RATE = 0.05


def preferences() -> torch.Tensor:
    """The fixed implicit-feedback matrix (the same for every seed, like a dataset): user u has interacted with
    item i when a rank-3 affinity plus item popularity is in the user's top 25% of items."""
    g = torch.Generator().manual_seed(4321)
    u = torch.randn(NUM_USERS, TRUE_RANK, generator=g)
    v = torch.randn(NUM_ITEMS, TRUE_RANK, generator=g)
    pop = 0.7 * torch.randn(NUM_ITEMS, generator=g)
    score = u @ v.T + pop
    thr = score.quantile(0.75, dim=1, keepdim=True)
    return score >= thr


def sample_triples(gen: torch.Generator, n: int):
    """LearnBPR's bootstrap sampling: a uniform user, one of its positive items, one of its other items."""
    pos_mask = preferences()
    users = torch.randint(0, NUM_USERS, (n,), generator=gen)
    pos_w = pos_mask[users].float()
    neg_w = (~pos_mask[users]).float()
    pos = torch.multinomial(pos_w, 1, generator=gen).squeeze(1)
    neg = torch.multinomial(neg_w, 1, generator=gen).squeeze(1)
    return users, pos, neg


class BPRMF(nn.Module):
    """forward(users, items_i, items_j) -> (x_uij, l2), the pairwise scores of the triples and the L2 term of the
    rows they touch."""

    def __init__(self):
        super().__init__()
        self.user_factors = nn.Embedding(NUM_USERS, NUM_FACTORS)
        self.item_factors = nn.Embedding(NUM_ITEMS, NUM_FACTORS)
        self.item_bias = nn.Embedding(NUM_ITEMS, 1)
        nn.init.normal_(self.user_factors.weight, 0.0, 0.1)   # InitMean 0, InitStdDev 0.1
        nn.init.normal_(self.item_factors.weight, 0.0, 0.1)
        nn.init.zeros_(self.item_bias.weight)

    def forward(self, users, items_i, items_j):
        w_u = self.user_factors(users)
        h_i, h_j = self.item_factors(items_i), self.item_factors(items_j)
        b_i, b_j = self.item_bias(items_i).squeeze(1), self.item_bias(items_j).squeeze(1)
        x_uij = b_i - b_j + (w_u * (h_i - h_j)).sum(1)
        l2 = 0.5 * (REG_U * w_u.pow(2).sum() + REG_I * h_i.pow(2).sum() + REG_J * h_j.pow(2).sum()
                    + BIAS_REG * (b_i.pow(2).sum() + b_j.pow(2).sum()))
        return x_uij, l2

    def scores(self, users):
        return self.item_bias.weight.squeeze(1) + self.user_factors(users) @ self.item_factors.weight.T


def bpr_loss(outputs, _targets=None) -> torch.Tensor:
    """BPR-Opt as a loss, summed over the triples of the batch (per-triple SGD updates add up)."""
    x_uij, l2 = outputs
    return -F.logsigmoid(x_uij).sum() + l2


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=LEARN_RATE)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    users, pos, neg = sample_triples(gen, BATCH)
    spec = {
        "model": BPRMF(),
        "batch": ((users, pos, neg), None),
        "loss_fn": bpr_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
