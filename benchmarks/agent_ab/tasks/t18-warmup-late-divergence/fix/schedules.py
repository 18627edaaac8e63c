"""Optimizer and learning-rate schedule factories.

The schedule is a linear warmup (from ``warmup_start_factor * lr`` to ``lr``
over ``warmup_steps``) followed by the main schedule (cosine down to
``min_lr_ratio * lr`` at the last step, or constant). Both parts are chainable
schedulers (each multiplies the current lr by its own per-step factor), so they
are combined with ``ChainedScheduler`` and stepped once per optimizer step.
"""
import math

import torch
from torch.optim.lr_scheduler import ChainedScheduler, CosineAnnealingLR, LRScheduler


class LinearWarmup(LRScheduler):
    """Linear warmup of the learning rate, chainable form (like ``LinearLR``)."""

    def __init__(self, optimizer, warmup_steps, start_factor=0.1, last_epoch=-1):
        if not 0.0 < start_factor <= 1.0:
            raise ValueError("start_factor must be in (0, 1]")
        self.warmup_steps = max(int(warmup_steps), 1)
        self.start_factor = float(start_factor)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t = self.last_epoch
        if t > self.warmup_steps:
            return [group["lr"] for group in self.optimizer.param_groups]
        if t == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        # ratio of consecutive warmup factors f(t) / f(t-1), f(t) = s + (1 - s) * t / T
        ratio = 1.0 + (1.0 - self.start_factor) / (
            self.start_factor * self.warmup_steps + (t - 1) * (1.0 - self.start_factor))
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        t = min(self.last_epoch, self.warmup_steps)
        f = self.start_factor + (1.0 - self.start_factor) * t / self.warmup_steps
        return [base_lr * f for base_lr in self.base_lrs]


def build_optimizer(model, cfg):
    o = cfg["optim"]
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or "norm" in name else decay).append(p)
    groups = [{"params": decay, "weight_decay": o.get("weight_decay", 0.0)},
              {"params": no_decay, "weight_decay": 0.0}]
    if o.get("name", "adamw") == "adamw":
        return torch.optim.AdamW(groups, lr=o["lr"], betas=tuple(o.get("betas", (0.9, 0.999))))
    if o["name"] == "sgd":
        return torch.optim.SGD(groups, lr=o["lr"], momentum=o.get("momentum", 0.9))
    raise ValueError(f"unknown optimizer {o['name']!r}")


def build_scheduler(optimizer, cfg):
    s, total = cfg["sched"], int(cfg["train"]["steps"])
    parts = []
    if s.get("warmup_steps", 0) > 0:
        parts.append(LinearWarmup(optimizer, s["warmup_steps"], s.get("warmup_start_factor", 0.1)))
    if s.get("name", "cosine") == "cosine":
        base = optimizer.param_groups[0].get("initial_lr", optimizer.defaults["lr"])
        parts.append(CosineAnnealingLR(optimizer, T_max=total, eta_min=base * s.get("min_lr_ratio", 0.0)))
    elif s["name"] != "constant":
        raise ValueError(f"unknown schedule {s['name']!r}")
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else ChainedScheduler(parts)


def describe_schedule(cfg):
    s = cfg["sched"]
    return (f"{s.get('name', 'cosine')} schedule, {s.get('warmup_steps', 0)} warmup steps from "
            f"{s.get('warmup_start_factor', 0.1):g}x, min lr ratio {s.get('min_lr_ratio', 0.0):g}")


def cosine_factor(step, total, min_ratio):
    """Closed-form cosine factor (used by plotting notebooks)."""
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * min(step, total) / total))
