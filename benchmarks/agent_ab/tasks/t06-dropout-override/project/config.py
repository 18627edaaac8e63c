"""Typed experiment configuration.

Runs are described by a YAML file (see ``config.yaml``) with one section per
dataclass below.  Command-line flags can override single values for quick
sweeps without editing the file.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping

import yaml


@dataclass
class DataConfig:
    n_train: int = 800
    n_val: int = 4000
    n_features: int = 32
    n_classes: int = 4
    label_noise: float = 0.05
    seed: int = 7


@dataclass
class ModelConfig:
    hidden_dim: int = 256
    num_layers: int = 2
    dropout: float = 0.0
    activation: str = "relu"


@dataclass
class OptimConfig:
    name: str = "adamw"
    lr: float = 1e-3
    weight_decay: float = 0.0


@dataclass
class TrainConfig:
    epochs: int = 20
    batch_size: int = 64
    seed: int = 0
    log_every: int = 5


@dataclass
class ExperimentConfig:
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def to_dict(self) -> dict:
        return asdict(self)


_SECTIONS = {
    "data": DataConfig,
    "model": ModelConfig,
    "optim": OptimConfig,
    "train": TrainConfig,
}


def _build_section(cls, raw: Mapping[str, Any] | None):
    raw = dict(raw or {})
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(raw) - names)
    if unknown:
        raise KeyError(f"unknown keys for {cls.__name__}: {unknown}")
    return cls(**raw)


def load_config(path: str) -> ExperimentConfig:
    with open(path) as fh:
        raw = yaml.safe_load(fh) or {}
    extra = sorted(set(raw) - set(_SECTIONS))
    if extra:
        raise KeyError(f"unknown config sections: {extra}")
    return ExperimentConfig(**{name: _build_section(cls, raw.get(name)) for name, cls in _SECTIONS.items()})


def apply_overrides(cfg: ExperimentConfig, overrides: Mapping[str, Any]) -> ExperimentConfig:
    """Apply flat ``{field_name: value}`` overrides (e.g. parsed CLI flags).

    Each name is looked up in every section; ``None`` means "not given" and
    leaves the value from the file untouched.
    """
    for key, value in overrides.items():
        if value is None:
            continue
        for section in (cfg.data, cfg.model, cfg.optim, cfg.train):
            if hasattr(section, key):
                setattr(section, key, type(getattr(section, key))(value))
    return cfg
