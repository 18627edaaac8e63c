"""Small helpers shared by the training scripts: seeding, logging, timing."""
import logging
import os
import random
import sys
import time
from contextlib import contextmanager

import numpy as np
import torch

_LOG_FORMAT = "%(asctime)s %(levelname).1s %(name)s | %(message)s"


def seed_everything(seed: int) -> None:
    """Seed python, numpy and torch (CPU) generators."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))


def get_logger(name: str = "train", level: str = "INFO") -> logging.Logger:
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter(_LOG_FORMAT, datefmt="%H:%M:%S"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(getattr(logging, str(level).upper(), logging.INFO))
    return logger


def count_parameters(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


class AverageMeter:
    """Running (weighted) mean of a scalar."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, value: float, n: int = 1) -> None:
        self.total += float(value) * n
        self.count += n

    @property
    def avg(self) -> float:
        return self.total / max(self.count, 1)


@contextmanager
def timed(logger: logging.Logger, what: str):
    t0 = time.perf_counter()
    yield
    logger.debug("%s took %.2fs", what, time.perf_counter() - t0)
