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


class AccumulationPlan:
    """How a step over ``accum_steps`` micro-batches maps onto one large-batch step.

    The loss of each micro-batch is scaled by 1/accum_steps so that the accumulated
    gradient is the mean over the whole effective batch, and the normalisation
    layers are adapted so that their running statistics follow the same per-step
    horizon as in a run without accumulation.
    """

    def __init__(self, accum_steps: int):
        if accum_steps < 1:
            raise ValueError("accum_steps must be >= 1")
        self.accum_steps = accum_steps

    @property
    def loss_scale(self) -> float:
        return 1.0 / self.accum_steps

    def is_step_boundary(self, micro_step: int) -> bool:
        return (micro_step + 1) % self.accum_steps == 0

    def adapt_norm_layers(self, model: torch.nn.Module) -> int:
        """Rescale BatchNorm momenta for accumulation; returns the number of layers."""
        n = 0
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm) and module.momentum:
                module.momentum = 1.0 - (1.0 - module.momentum) ** (1.0 / self.accum_steps)
                n += 1
        return n

    def describe(self, micro_batch: int) -> str:
        return (f"accum_steps={self.accum_steps} micro_batch={micro_batch} "
                f"effective_batch={micro_batch * self.accum_steps} loss_scale={self.loss_scale:.4f}")
