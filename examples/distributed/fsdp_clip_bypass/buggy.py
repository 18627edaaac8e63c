"""FSDP training that clips with torch.nn.utils.clip_grad_norm_: each rank measures the norm of its own shard.

FSDP (FullyShardedDataParallel, use_orig_params=False) keeps one flat shard of the parameters per rank, so
the generic clip_grad_norm_ sees a different fraction of the gradient on each rank and scales each shard by
a different factor. FSDP's own model.clip_grad_norm_ all-reduces the shards' norms first. Runs on CPU with
gloo in torch 2.13.

Run it:   torchrun --standalone --nproc-per-node 2 examples/distributed/fsdp_clip_bypass/buggy.py
Diagnose: mldebug-mcp diagnose examples/distributed/fsdp_clip_bypass/buggy.py:debug_spec --nproc 2
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def rank_batch(rank, n=64):
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 0] + x[:, 1] > 0).long()


def build_model():
    torch.manual_seed(0)
    return FSDP(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)), device_id=torch.device("cpu"))


def train_step(model, batch, optimizer):
    x, y = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)  # BUG: the norm of this rank's shard only
    optimizer.step()
    return loss


def debug_spec(rank=0, world_size=1):
    torch.set_num_threads(1)
    return dict(model=build_model(), batch=rank_batch(rank), loss_fn=F.cross_entropy, task="classification",
                num_classes=2, optimizer=lambda params: torch.optim.SGD(params, lr=0.1), train_step=train_step)


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
