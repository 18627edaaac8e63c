"""Configuration loading: YAML file + defaults + ``key.sub=value`` overrides."""
import copy

import yaml

DEFAULTS = {
    "seed": 0,
    "env": {"layout": "corridor", "max_steps": 5, "eval_max_steps": 50, "random_start": True,
            "slip": 0.2, "coin_reward": 1.0, "goal_reward": 4.0, "step_penalty": 0.0},
    "agent": {"hidden": 64, "gamma": 0.9, "lr": 1e-3, "batch_size": 64, "target_sync": 200,
              "double_q": False},
    "explore": {"eps_start": 1.0, "eps_end": 0.1, "eps_decay_steps": 3000},
    "train": {"episodes": 1200, "buffer_size": 20000, "warmup_steps": 500, "updates_per_step": 1,
              "eval_every": 200, "eval_episodes": 20},
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
