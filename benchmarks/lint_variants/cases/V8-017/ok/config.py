from dataclasses import dataclass, field
from typing import List


@dataclass
class DataConfig:
    csv_path: str = "data/adult.csv"
    target: str = "income"
    positive_label: str = ">50K"
    categorical: List[str] = field(default_factory=lambda: [
        "workclass", "education", "marital-status", "occupation", "relationship", "race", "sex", "native-country"])
    numerical: List[str] = field(default_factory=lambda: [
        "age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"])
    valid_size: float = 0.2
    seed: int = 0


@dataclass
class ModelConfig:
    n_d: int = 16
    n_a: int = 16
    n_steps: int = 4
    gamma: float = 1.3
    cat_emb_dim: int = 4
    n_shared: int = 2
    n_independent: int = 2
    virtual_batch_size: int = 256
    momentum: float = 0.02


@dataclass
class TrainConfig:
    batch_size: int = 1024
    max_epochs: int = 100
    lr: float = 2e-2
    lambda_sparse: float = 1e-3
    patience: int = 15
    checkpoint: str = "checkpoints/tabnet_adult.pt"


@dataclass
class Config:
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
