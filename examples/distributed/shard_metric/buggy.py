"""DDP training that logs the accuracy rank 0 computes on its own shard: the logged number covers half the data.

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/shard_metric/buggy.py
Diagnose: mldebug-mcp diagnose examples/distributed/shard_metric/buggy.py:debug_spec --nproc 2
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def rank_batch(rank, n=64):
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 0] + x[:, 1] > 0).long()


def build_model():
    torch.manual_seed(0)
    return DDP(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)))


def accuracy(logits, targets):
    correct = (logits.argmax(dim=1) == targets).sum()
    return (correct / targets.numel()).item()  # BUG: this rank's shard only; rank 0 logs it as the run's accuracy


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    return dict(model=build_model(), batch=rank_batch(rank), loss_fn=F.cross_entropy, task="classification",
                num_classes=2, optimizer=lambda params: torch.optim.SGD(params, lr=0.1), metric=accuracy)


def main():
    dist.init_process_group("gloo")
    spec = debug_spec(dist.get_rank(), dist.get_world_size())
    model, (x, y) = spec["model"], spec["batch"]
    optimizer = spec["optimizer"](model.parameters())
    for step in range(30):
        optimizer.zero_grad()
        logits = model(x)
        F.cross_entropy(logits, y).backward()
        optimizer.step()
        acc = accuracy(logits.detach(), y)  # every rank calls it (the fixed version all-reduces inside)
        if dist.get_rank() == 0 and step % 10 == 0:
            print(f"step {step} accuracy {acc:.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
