from dataclasses import asdict, dataclass, field
from typing import Optional

import yaml


@dataclass
class ModelConfig:
    vocab_size: int = 388 + 3
    d_model: int = 512
    n_layers: int = 6
    n_heads: int = 8
    d_ff: int = 2048
    max_seq: int = 2048
    dropout: float = 0.1


@dataclass
class DataConfig:
    root: str = "data/maestro_tokens"
    seq_len: int = 2048
    pitch_shift: int = 3
    time_stretch: float = 0.05
    num_workers: int = 4


@dataclass
class TrainConfig:
    batch_size: int = 4
    lr: float = 1.0
    warmup_steps: int = 4000
    label_smoothing: float = 0.1
    epochs: int = 100
    grad_clip: float = 1.0
    log_every: int = 50
    ckpt_dir: str = "checkpoints/music_transformer"
    resume: Optional[str] = None
    amp: bool = True


@dataclass
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    data: DataConfig = field(default_factory=DataConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    @classmethod
    def from_yaml(cls, path: str) -> "Config":
        with open(path) as f:
            raw = yaml.safe_load(f) or {}
        return cls(model=ModelConfig(**raw.get("model", {})), data=DataConfig(**raw.get("data", {})),
                   train=TrainConfig(**raw.get("train", {})))

    def dump(self, path: str) -> None:
        with open(path, "w") as f:
            yaml.safe_dump(asdict(self), f)
