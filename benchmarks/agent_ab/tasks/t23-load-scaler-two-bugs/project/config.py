"""Configuration: DEFAULTS, updated from a YAML file, then from ``section.key=value`` overrides."""
from __future__ import annotations

import copy
from typing import Any, Dict, Iterable, Optional

import yaml

DEFAULTS: Dict[str, Any] = {
    "seed": 0,
    "data": {
        "data_seed": 11,
        "days_train": 300,
        "days_val": 60,
        "batch_size": 128,
        "features": ["hour_sin", "hour_cos", "dow_sin", "dow_cos", "temp_c", "humidity", "holiday"],
        "target": "load_kwh",
        "target_transform": "log1p",   # loads are skewed: fit in log space
    },
    "model": {"hidden": [128, 64], "dropout": 0.0},
    "optim": {"lr": 0.003, "weight_decay": 0.0001},
    "train": {"epochs": 15, "grad_clip": 5.0, "log_every": 3},
    "run_dir": None,
    "log_level": "INFO",
}


def deep_update(base: Dict[str, Any], other: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in (other or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_update(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def parse_override(text: str) -> Dict[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep:
        raise ValueError(f"override {text!r} is not of the form section.key=value")
    node: Dict[str, Any] = {}
    cur = node
    parts = key.strip().split(".")
    for part in parts[:-1]:
        cur[part] = {}
        cur = cur[part]
    cur[parts[-1]] = yaml.safe_load(raw)
    return node


def load_config(path: Optional[str] = None, overrides: Iterable[str] = ()) -> Dict[str, Any]:
    cfg = copy.deepcopy(DEFAULTS)
    if path:
        with open(path) as fh:
            cfg = deep_update(cfg, yaml.safe_load(fh) or {})
    for text in overrides:
        cfg = deep_update(cfg, parse_override(text))
    return cfg
