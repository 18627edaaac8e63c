"""Configuration: DEFAULTS, updated from a YAML file, then from ``section.key=value`` overrides."""
from __future__ import annotations

import copy
from typing import Any, Dict, Iterable, Optional

import yaml

from defaults import DEFAULTS


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
