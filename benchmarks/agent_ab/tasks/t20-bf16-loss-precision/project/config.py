"""Configuration loading: YAML file + defaults + ``key.sub=value`` overrides."""
import copy

import yaml

DEFAULTS = {
    "seed": 0,
    "data": {"num_features": 16, "train_size": 8000, "val_size": 2000, "base_temp_k": 550.0,
             "amplitude_k": 6.0, "noise_k": 0.1},
    "model": {"width": 128, "depth": 3},
    "optim": {"lr": 5e-3, "weight_decay": 0.0},
    "precision": {"amp": True, "dtype": "bfloat16"},
    "train": {"epochs": 30, "batch_size": 128, "log_every": 50},
    "log_level": "INFO",
}


def deep_update(base, other):
    out = copy.deepcopy(base)
    for k, v in (other or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_update(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def parse_override(text):
    key, _, raw = text.partition("=")
    value = yaml.safe_load(raw)
    node = {}
    cur = node
    parts = key.strip().split(".")
    for p in parts[:-1]:
        cur[p] = {}
        cur = cur[p]
    cur[parts[-1]] = value
    return node


def load_config(path=None, overrides=(), defaults=None):
    cfg = copy.deepcopy(defaults if defaults is not None else DEFAULTS)
    if path:
        with open(path) as f:
            cfg = deep_update(cfg, yaml.safe_load(f) or {})
    for o in overrides:
        cfg = deep_update(cfg, parse_override(o))
    return cfg
