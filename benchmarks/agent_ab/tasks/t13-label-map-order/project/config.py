"""Configuration: YAML + ``section.key=value`` overrides, as a nested dict."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import yaml

REQUIRED = {"data": ["categories", "vocab_words", "doc_length"], "model": ["embed_dim"],
            "optim": ["lr"], "train": ["epochs", "batch_size"]}


def load_config(path: str = "config.yaml", overrides: Optional[List[str]] = None) -> Dict[str, Any]:
    with open(path) as fh:
        cfg = yaml.safe_load(fh)
    for item in overrides or []:
        key, _, raw = item.partition("=")
        node = cfg
        *parents, leaf = key.strip().split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = yaml.safe_load(raw)
    check(cfg)
    return cfg


def check(cfg: Dict[str, Any]) -> None:
    for section, keys in REQUIRED.items():
        for key in keys:
            if key not in cfg.get(section, {}):
                raise KeyError(f"missing config key {section}.{key}")
    if len(set(cfg["data"]["categories"])) != len(cfg["data"]["categories"]):
        raise ValueError("duplicate category names")
    share = cfg["data"].get("class_share", {})
    if set(share) != set(cfg["data"]["categories"]):
        raise ValueError("data.class_share must list every category")
    if abs(sum(share.values()) - 1.0) > 1e-6:
        raise ValueError("data.class_share must sum to 1")
