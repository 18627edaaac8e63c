"""Configuration: DEFAULTS, updated from a YAML file, then from ``section.key=value`` overrides."""
from __future__ import annotations

import copy
from typing import Any, Dict, Iterable, Optional

import yaml

DEFAULTS: Dict[str, Any] = {
    "seed": 0,
    "data": {
        "train_csv": "data/train.csv",
        "val_fraction": 0.2,
        "split_seed": 5,
        "features": ["rpm", "temp_c", "current_a", "pressure_bar", "flow_m3h",
                     "vib_rms_x", "vib_rms_y", "vib_peak"],
        "log_features": ["vib_rms_x", "vib_rms_y", "vib_peak"],
        "target": "fault",
        "classes": ["normal", "bearing", "cavitation", "misalignment"],
        "batch_size": 64,
    },
    "model": {"hidden": [64, 64], "dropout": 0.1},
    "optim": {"lr": 0.002, "weight_decay": 0.0001},
    "train": {"epochs": 20, "grad_clip": None, "log_every": 5, "early_stop_patience": 0},
    "run_dir": "runs/latest",
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
