"""Assorted helpers: seeding, parameter counts, timing."""
from __future__ import annotations

import os
import random
import time
from contextlib import contextmanager

import numpy as np
import torch


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))


def count_parameters(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@contextmanager
def timer(label: str, logger=None):
    t0 = time.time()
    yield
    if logger is not None:
        logger.info("%s took %.2fs", label, time.time() - t0)
