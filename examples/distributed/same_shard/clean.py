"""DDP training whose loader draws from a DistributedSampler: each rank reads its own shard, reshuffled
every epoch by set_epoch.

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/same_shard/clean.py
Diagnose: mldebug-mcp diagnose examples/distributed/same_shard/clean.py:debug_spec --nproc 2
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def dataset(n=256):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 8, generator=g)
    return TensorDataset(x, (x[:, 0] * x[:, 1] > 0).long())


def build_loader(rank, world_size):
    torch.manual_seed(0)  # the same seed on every rank, for reproducible runs
    sampler = DistributedSampler(dataset(), num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    return DataLoader(sampler.dataset, batch_size=32, sampler=sampler)  # FIX: each rank its own shard


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    loader = build_loader(rank, world_size)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)))
    return dict(model=model, loader=loader, set_epoch=loader.sampler.set_epoch, loss_fn=F.cross_entropy,
                task="classification", num_classes=2, optimizer=lambda params: torch.optim.SGD(params, lr=0.1))


def main():
    dist.init_process_group("gloo")
    spec = debug_spec(dist.get_rank(), dist.get_world_size())
    model, loader = spec["model"], spec["loader"]
    optimizer = spec["optimizer"](model.parameters())
    for epoch in range(3):
        if spec.get("set_epoch"):
            spec["set_epoch"](epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            print(f"epoch {epoch} loss {loss.item():.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
