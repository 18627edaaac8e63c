"""Hand-rolled data parallelism that clips each rank's gradient before averaging: every rank clips by its own
norm, so the update is the average of differently scaled gradients, not the clipped global gradient.

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/clip_before_allreduce/buggy.py
Diagnose: mldebug-mcp diagnose examples/distributed/clip_before_allreduce/buggy.py:debug_spec --nproc 2
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


def train_step(model, batch, optimizer):
    x, y = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)  # BUG: this rank's norm, before the gradients are averaged
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= dist.get_world_size()
    optimizer.step()
    return loss


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    return dict(model=build_model(), batch=rank_batch(rank), loss_fn=F.cross_entropy, task="classification",
                num_classes=2, optimizer=lambda params: torch.optim.SGD(params, lr=0.1),
                train_step=train_step)


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
