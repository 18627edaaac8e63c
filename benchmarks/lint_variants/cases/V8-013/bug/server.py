import logging

import numpy as np
import torch

logger = logging.getLogger(__name__)


def fedavg(states, weights):
    total = float(sum(weights))
    avg = {}
    for key in states[0]:
        if states[0][key].dtype in (torch.int64, torch.long):
            avg[key] = states[0][key].clone()
            continue
        avg[key] = sum(s[key].float() * (w / total) for s, w in zip(states, weights)).to(states[0][key].dtype)
    return avg


def dirichlet_partition(labels, num_clients, alpha, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    parts = [[] for _ in range(num_clients)]
    for c in np.unique(labels):
        idx = rng.permutation(np.where(labels == c)[0])
        props = rng.dirichlet(alpha * np.ones(num_clients))
        cuts = (np.cumsum(props) * len(idx)).astype(int)[:-1]
        for k, chunk in enumerate(np.split(idx, cuts)):
            parts[k].extend(chunk.tolist())
    return [rng.permutation(p).tolist() for p in parts]


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, n, loss = 0, 0, 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss += torch.nn.functional.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        n += y.size(0)
    return correct / n, loss / n


def sample_clients(num_clients, frac, rng):
    m = max(1, int(round(frac * num_clients)))
    return sorted(rng.choice(num_clients, m, replace=False).tolist())
