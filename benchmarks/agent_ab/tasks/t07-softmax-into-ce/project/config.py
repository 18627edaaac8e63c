"""Run settings for the gesture classifier."""
from dataclasses import dataclass


@dataclass
class Config:
    # data
    n_classes: int = 20
    n_channels: int = 3
    window: int = 64
    train_per_class: int = 60
    val_per_class: int = 60
    noise_std: float = 1.6
    data_seed: int = 11
    # model
    width: int = 32
    dropout: float = 0.1
    # optimisation
    lr: float = 3e-3
    weight_decay: float = 1e-4
    label_smoothing: float = 0.05
    epochs: int = 15
    batch_size: int = 64
    seed: int = 0
