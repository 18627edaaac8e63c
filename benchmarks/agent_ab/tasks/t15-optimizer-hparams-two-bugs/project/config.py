"""Configuration: YAML file + dotted command-line overrides (``train.epochs=50``)."""
from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

import yaml


def load_config(path: str = "config.yaml", overrides: Optional[List[str]] = None) -> Dict[str, Any]:
    with open(path) as fh:
        cfg = yaml.safe_load(fh)
    for item in overrides or []:
        key, _, raw = item.partition("=")
        apply_override(cfg, key.strip(), yaml.safe_load(raw))
    validate(cfg)
    return cfg


def apply_override(cfg: Dict[str, Any], dotted: str, value: Any) -> None:
    node = cfg
    parts = dotted.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def validate(cfg: Dict[str, Any]) -> None:
    if cfg["train"]["batch_size"] <= 0:
        raise ValueError("train.batch_size must be positive")
    if cfg["optim"]["name"] not in ("adamw", "sgd"):
        raise ValueError(f"unknown optimizer {cfg['optim']['name']}")
    if not 0.0 < cfg["data"]["val_fraction"] < 1.0:
        raise ValueError("data.val_fraction must be in (0, 1)")


def merged(cfg: Dict[str, Any], **sections: Dict[str, Any]) -> Dict[str, Any]:
    out = copy.deepcopy(cfg)
    for name, values in sections.items():
        out.setdefault(name, {}).update(values)
    return out
