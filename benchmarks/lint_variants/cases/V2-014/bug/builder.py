import random
from functools import partial

import numpy as np
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def worker_init_fn(worker_id, num_workers, rank, seed):
    worker_seed = num_workers * rank + worker_id + seed
    np.random.seed(worker_seed)
    random.seed(worker_seed)
    torch.manual_seed(worker_seed)


def build_dataloader(dataset, samples_per_gpu, workers_per_gpu, rank, world_size,
                     shuffle=True, seed=None, collate_fn=None):
    sampler = DistributedSampler(dataset, world_size, rank, shuffle=shuffle, seed=seed or 0)
    init_fn = partial(worker_init_fn, num_workers=workers_per_gpu, rank=rank,
                      seed=seed) if seed is not None else None
    return DataLoader(dataset, batch_size=samples_per_gpu, sampler=sampler,
                      num_workers=workers_per_gpu, collate_fn=collate_fn,
                      pin_memory=False, worker_init_fn=init_fn)


def build_optimizer(model, cfg):
    params = [p for p in model.parameters() if p.requires_grad]
    if cfg["type"] == "SGD":
        return torch.optim.SGD(params, lr=cfg["lr"], momentum=cfg.get("momentum", 0.9),
                               weight_decay=cfg.get("weight_decay", 1e-4))
    return torch.optim.AdamW(params, lr=cfg["lr"], weight_decay=cfg.get("weight_decay", 0.05))
