"""Configuration loading: YAML file + defaults + ``key.sub=value`` overrides."""
import copy

import yaml

DEFAULTS = {
    "seed": 0,
    "run_name": "baseline",
    "output_dir": "runs",
    "data": {"train_size": 3000, "val_size": 600, "test_size": 1000, "max_len": 24,
             "vocab_size": 1500, "min_freq": 1, "lowercase": True},
    "model": {"embed_dim": 48, "hidden": 64, "dropout": 0.1},
    "optim": {"lr": 3e-3, "weight_decay": 1e-4},
    "train": {"epochs": 6, "batch_size": 64, "patience": 3},
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
