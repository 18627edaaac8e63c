"""Saving and restoring training state (model, optimizer, LR schedule, step)."""
from __future__ import annotations

import glob
import os
import re
from typing import Any, Dict, Optional

import torch

from logging_utils import get_logger

log = get_logger("checkpoint")

_NAME = "step_{:06d}.pt"


def checkpoint_path(run_dir: str, step: int) -> str:
    return os.path.join(run_dir, "checkpoints", _NAME.format(step))


def latest_checkpoint(run_dir: str) -> Optional[str]:
    paths = glob.glob(os.path.join(run_dir, "checkpoints", "step_*.pt"))
    if not paths:
        return None
    return max(paths, key=lambda p: int(re.findall(r"(\d+)", os.path.basename(p))[0]))


def _normalize_keys(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    # checkpoints from the old DataParallel launcher carry a "module." prefix
    return {key.removeprefix("module."): value for key, value in state.items()}


def save_checkpoint(run_dir: str, step: int, model, optimizer, scheduler,
                    extra: Optional[Dict[str, Any]] = None) -> str:
    path = checkpoint_path(run_dir, step)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict() if scheduler is not None else None,
                "extra": extra or {}}, path)
    return path


def load_checkpoint(path: str, model, optimizer=None, scheduler=None) -> int:
    ckpt = torch.load(path, weights_only=False)
    state = _normalize_keys(ckpt["model"])
    # strict=False: checkpoints written before buffers were added to the model still load
    model.load_state_dict(state, strict=False)
    if optimizer is not None and ckpt.get("optimizer"):
        optimizer.load_state_dict(ckpt["optimizer"])
    if scheduler is not None and ckpt.get("scheduler"):
        scheduler.load_state_dict(ckpt["scheduler"])
    lr = optimizer.param_groups[0]["lr"] if optimizer is not None else float("nan")
    log.info("resumed from %s: step %d, lr %.6f, %d tensors restored", os.path.basename(path),
             ckpt["step"], lr, len(state))
    return int(ckpt["step"])
