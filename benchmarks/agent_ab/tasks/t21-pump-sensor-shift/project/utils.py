"""Small helpers shared by the scripts: seeding, timing, parameter counts."""
from __future__ import annotations

import os
import random
import time
from contextlib import contextmanager
from typing import Iterator, Optional

import numpy as np
import torch


def seed_everything(seed: int) -> None:
    """Seed python, numpy and torch (CPU) generators so that a run is reproducible."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))


def count_parameters(model: torch.nn.Module, trainable_only: bool = True) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def human_count(n: int) -> str:
    for unit in ("", "k", "M", "G"):
        if abs(n) < 1000:
            return f"{n:.0f}{unit}" if unit == "" else f"{n:.1f}{unit}"
        n /= 1000.0
    return f"{n:.1f}T"


@contextmanager
def timer(what: str, logger=None) -> Iterator[None]:
    t0 = time.perf_counter()
    yield
    if logger is not None:
        logger.info("%s took %.1fs", what, time.perf_counter() - t0)


def ensure_dir(path: Optional[str]) -> Optional[str]:
    if path:
        os.makedirs(path, exist_ok=True)
    return path
