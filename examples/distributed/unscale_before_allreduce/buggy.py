"""Hand-rolled data parallelism with a GradScaler that checks each rank's gradients before they are averaged.

scaler.unscale_ looks for inf and NaN in this rank's gradients only; the all-reduce after it then carries
one rank's inf to every rank. The rank that had it skips its step; the others, which found nothing, apply
the inf: the replicas split silently at the first overflow.

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/unscale_before_allreduce/buggy.py
Diagnose: mldebug-mcp diagnose examples/distributed/unscale_before_allreduce/buggy.py:debug_spec --nproc 2
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def rank_batch(rank, n=64):
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 0] - x[:, 2] > 0).long()


def build_model():
    torch.manual_seed(0)  # the same initial weights on every rank
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))


def make_train_step(scaler):
    def train_step(model, batch, optimizer):
        x, y = batch
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)  # BUG: looks for inf in this rank's gradients, before they are averaged
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= dist.get_world_size()
        scaler.step(optimizer)  # skipped on the rank that found an inf, applied (inf and all) on the others
        scaler.update()
        return loss
    return train_step


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    scaler = torch.amp.GradScaler("cpu")
    return dict(model=build_model(), batch=rank_batch(rank), loss_fn=F.cross_entropy, task="classification",
                num_classes=2, optimizer=lambda params: torch.optim.SGD(params, lr=0.1),
                train_step=make_train_step(scaler))


def main():
    dist.init_process_group("gloo")
    spec = debug_spec(dist.get_rank(), dist.get_world_size())
    model = spec["model"]
    optimizer = spec["optimizer"](model.parameters())
    for step in range(30):
        loss = spec["train_step"](model, spec["batch"], optimizer)
        if dist.get_rank() == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
