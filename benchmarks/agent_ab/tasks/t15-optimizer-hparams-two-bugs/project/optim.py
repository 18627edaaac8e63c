"""Optimizer factory shared by our training scripts."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable

import torch

# hyper-parameters every factory understands, with their defaults
_DEFAULTS: Dict[str, Any] = {
    "lr": 0.1,
    "betas": (0.9, 0.999),
    "eps": 1e-8,
    "weight_decay": 0.0,
    "momentum": 0.9,
    "nesterov": False,
}


def resolve_hparams(ocfg: Dict[str, Any]) -> Dict[str, Any]:
    hp = dict(_DEFAULTS)
    hp.update({k: v for k, v in ocfg.items() if k in _DEFAULTS})
    hp["betas"] = tuple(hp["betas"])
    return hp


_FACTORIES: Dict[str, Callable[[Iterable, Dict[str, Any]], torch.optim.Optimizer]] = {
    "adamw": lambda params, hp: torch.optim.AdamW(params, hp["lr"], hp["betas"],
                                                  hp["weight_decay"]),
    "sgd": lambda params, hp: torch.optim.SGD(params, hp["lr"], hp["momentum"],
                                              weight_decay=hp["weight_decay"],
                                              nesterov=hp["nesterov"]),
}


def build_optimizer(model: torch.nn.Module, ocfg: Dict[str, Any]) -> torch.optim.Optimizer:
    return _FACTORIES[ocfg["name"]](model.parameters(), resolve_hparams(ocfg))
