"""DDP training that averages the loss for its log on rank 0 only: rank 0 waits in an all_reduce that the
other ranks never call, and the job hangs (here for the 30 s process-group timeout; torch's default is 30
minutes on gloo, 10 on nccl).

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/rank0_only_collective/buggy.py
Diagnose: mldebug-mcp diagnose examples/distributed/rank0_only_collective/buggy.py:debug_spec --nproc 2
"""

from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def rank_batch(rank, n=64):
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 3] > 0).long()


def train_step(model, batch, optimizer):
    x, y = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    if dist.get_rank() == 0:  # BUG: only rank 0 enters the collective; the other ranks never call it
        logged = loss.detach().clone()
        dist.all_reduce(logged)
        print(f"mean loss {logged.item() / dist.get_world_size():.3f}")
    return loss


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)))
    return dict(model=model, batch=rank_batch(rank), loss_fn=F.cross_entropy, task="classification",
                num_classes=2, optimizer=lambda params: torch.optim.SGD(params, lr=0.1), train_step=train_step)


def main():
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    spec = debug_spec(dist.get_rank(), dist.get_world_size())
    optimizer = spec["optimizer"](spec["model"].parameters())
    for _ in range(20):
        train_step(spec["model"], spec["batch"], optimizer)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
