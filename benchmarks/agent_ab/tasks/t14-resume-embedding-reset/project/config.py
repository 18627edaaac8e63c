"""Configuration dataclasses, loaded from YAML with ``section.key=value`` overrides."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

import yaml


@dataclass
class DataConfig:
    vocab_size: int = 600
    num_classes: int = 6
    seq_len: int = 20
    train_size: int = 4000
    val_size: int = 1000


@dataclass
class ModelConfig:
    embed_dim: int = 48
    hidden: int = 96


@dataclass
class OptimConfig:
    lr: float = 2e-3
    weight_decay: float = 0.01
    warmup_steps: int = 50


@dataclass
class TrainConfig:
    max_steps: int = 600
    batch_size: int = 32
    save_every: int = 100
    eval_every: int = 100
    log_every: int = 50
    stop_after: Optional[int] = None   # simulate a preemption after this many steps


@dataclass
class Config:
    seed: int = 0
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    run_dir: Optional[str] = "runs/default"
    resume: bool = False

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def from_dict(raw: Dict[str, Any]) -> Config:
    return Config(seed=raw.get("seed", 0),
                  data=DataConfig(**raw.get("data", {})),
                  model=ModelConfig(**raw.get("model", {})),
                  optim=OptimConfig(**raw.get("optim", {})),
                  train=TrainConfig(**raw.get("train", {})),
                  run_dir=raw.get("run_dir"), resume=bool(raw.get("resume", False)))


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
