"""Configuration loading: YAML file + defaults + ``key.sub=value`` overrides."""
import copy

import yaml

DEFAULTS = {
    "seed": 0,
    "data": {"num_features": 24, "teacher_hidden": 48, "train_size": 6000, "val_size": 1000,
             "noise_std": 0.05, "outlier_frac": 0.01, "outlier_scale": 8.0},
    "model": {"width": 96, "depth": 3, "dropout": 0.0},
    "optim": {"name": "sgd", "lr": 0.02, "momentum": 0.9, "weight_decay": 0.0001,
              "betas": [0.9, 0.999], "grad_clip": None},
    "sched": {"name": "constant", "warmup_steps": 200, "warmup_start_factor": 0.1, "min_lr_ratio": 0.1},
    "train": {"steps": 3000, "batch_size": 64, "eval_every": 250, "log_every": 250},
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
