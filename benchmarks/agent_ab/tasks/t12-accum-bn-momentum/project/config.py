"""Typed configuration loaded from YAML, with ``section.key=value`` overrides."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Dict, List, Optional

import yaml


@dataclass
class DataConfig:
    num_features: int = 48
    num_classes: int = 8
    train_size: int = 6000
    val_size: int = 2000
    label_noise: float = 0.0


@dataclass
class ModelConfig:
    hidden: List[int] = field(default_factory=lambda: [256, 256])
    dropout: float = 0.0
    bn_momentum: float = 0.1


@dataclass
class OptimConfig:
    name: str = "sgd"
    lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 0.0
    nesterov: bool = False


@dataclass
class TrainConfig:
    epochs: int = 10
    batch_size: int = 128
    accum_steps: int = 1
    grad_clip: Optional[float] = None
    log_every: int = 0


@dataclass
class Config:
    seed: int = 0
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    run_dir: Optional[str] = None

    @property
    def micro_batch_size(self) -> int:
        return self.train.batch_size // self.train.accum_steps

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


_SECTIONS = {"data": DataConfig, "model": ModelConfig, "optim": OptimConfig, "train": TrainConfig}


def from_dict(raw: Dict[str, Any]) -> Config:
    kwargs: Dict[str, Any] = {}
    for f in fields(Config):
        if f.name in _SECTIONS:
            kwargs[f.name] = _SECTIONS[f.name](**(raw.get(f.name) or {}))
        elif f.name in raw:
            kwargs[f.name] = raw[f.name]
    cfg = Config(**kwargs)
    if cfg.train.batch_size % cfg.train.accum_steps:
        raise ValueError("train.batch_size must be a multiple of train.accum_steps")
    return cfg


def load_config(path: str = "config.yaml", overrides: Optional[List[str]] = None) -> Config:
    with open(path) as fh:
        raw = yaml.safe_load(fh)
    for item in overrides or []:
        key, _, value = item.partition("=")
        node = raw
        *parents, leaf = key.strip().split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = yaml.safe_load(value)
    return from_dict(raw)
