"""DDP training seeded once for the weights, then by rank: each rank draws its own dropout masks.

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/same_dropout_masks/clean.py
Diagnose: mldebug-mcp diagnose examples/distributed/same_dropout_masks/clean.py:debug_spec --nproc 2
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

SEED = 0


def rank_batch(rank, n=64):
    """Each rank its own samples of one synthetic task."""
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 0] + x[:, 1] > 0).long()


def build_model(rank):
    torch.manual_seed(SEED)  # one seed for the weights (DDP broadcasts rank 0's anyway)
    model = DDP(nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 2)))
    torch.manual_seed(SEED + rank)  # FIX: then a stream per rank for dropout (and augmentation)
    return model


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    return dict(model=build_model(rank), batch=rank_batch(rank), loss_fn=F.cross_entropy, task="classification",
                num_classes=2, optimizer=lambda params: torch.optim.SGD(params, lr=0.1))


def main():
    dist.init_process_group("gloo")
    spec = debug_spec(dist.get_rank(), dist.get_world_size())
    model, (x, y) = spec["model"], spec["batch"]
    optimizer = spec["optimizer"](model.parameters())
    for step in range(30):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if dist.get_rank() == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
