"""DDP training with a DistributedSampler whose epoch hook resets the meters but never calls set_epoch:
every epoch replays the first epoch's order.

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/stale_epoch_order/buggy.py
Diagnose: mldebug-mcp diagnose examples/distributed/stale_epoch_order/buggy.py:debug_spec --nproc 2
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
    return TensorDataset(x, (x[:, 2] > x[:, 5]).long())


class Trainer:
    def __init__(self, rank, world_size):
        sampler = DistributedSampler(dataset(), num_replicas=world_size, rank=rank, shuffle=True, seed=0)
        self.loader = DataLoader(sampler.dataset, batch_size=32, sampler=sampler)
        torch.manual_seed(0)
        self.model = DDP(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)))
        self.seen = 0

    def start_epoch(self, epoch):
        """What the loop does before each epoch."""
        self.seen = 0  # BUG: resets the meter but never calls self.loader.sampler.set_epoch(epoch)


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    trainer = Trainer(rank, world_size)
    return dict(model=trainer.model, loader=trainer.loader, set_epoch=trainer.start_epoch, loss_fn=F.cross_entropy,
                task="classification", num_classes=2, optimizer=lambda params: torch.optim.SGD(params, lr=0.1))


def main():
    dist.init_process_group("gloo")
    trainer = Trainer(dist.get_rank(), dist.get_world_size())
    optimizer = torch.optim.SGD(trainer.model.parameters(), lr=0.1)
    for epoch in range(3):
        trainer.start_epoch(epoch)
        for x, y in trainer.loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(trainer.model(x), y)
            loss.backward()
            optimizer.step()
            trainer.seen += len(x)
        if dist.get_rank() == 0:
            print(f"epoch {epoch} loss {loss.item():.3f} samples {trainer.seen}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
