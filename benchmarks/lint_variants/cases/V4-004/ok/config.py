from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore


@dataclass
class DataConfig:
    dataset_name: str = "imdb"
    max_length: int = 256
    batch_size: int = 32


@dataclass
class OptimConfig:
    lr: float = 2e-5
    weight_decay: float = 0.01
    warmup_steps: int = 500
    num_epochs: int = 3


@dataclass
class TrainConfig:
    model_name: str = "bert-base-uncased"
    output_dir: str = "outputs"
    seed: int = 42
    mixed_precision: str = "fp16"
    data: DataConfig = field(default_factory=DataConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)


cs = ConfigStore.instance()
cs.store(name="train_config", node=TrainConfig)
