"""DDP training with 4 samples per rank and a normalisation that does not depend on the batch.

On GPUs, nn.SyncBatchNorm.convert_sync_batchnorm(model) (before DDP) computes BatchNorm's statistics over
the global batch; torch 2.13's SyncBatchNorm needs CUDA or XPU tensors, so on CPU (gloo) this twin uses
GroupNorm, whose statistics are per sample.

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/per_rank_batchnorm/clean.py
Diagnose: mldebug-mcp diagnose examples/distributed/per_rank_batchnorm/clean.py:debug_spec --nproc 2
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

PER_RANK_BATCH = 4  # a global batch of 8 on 2 ranks


def rank_batch(rank, n=PER_RANK_BATCH):
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 0] + x[:, 1] > 0).long()


def build_model():
    torch.manual_seed(0)
    norm = nn.GroupNorm(4, 32)  # FIX: per-sample statistics (on GPUs: SyncBatchNorm, over the global batch)
    return DDP(nn.Sequential(nn.Linear(8, 32), norm, nn.ReLU(), nn.Linear(32, 2)))


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    return dict(model=build_model(), batch=rank_batch(rank), loss_fn=F.cross_entropy, task="classification",
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
