"""Settings for the toy instruction-tuning run."""
from dataclasses import dataclass


@dataclass
class Config:
    # data
    n_train: int = 4000
    n_eval: int = 200
    min_len: int = 3
    max_len: int = 5
    data_seed: int = 1234
    # model
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    max_seq_len: int = 16
    dropout: float = 0.0
    # training
    lr: float = 3e-3
    weight_decay: float = 0.01
    warmup_steps: int = 50
    steps: int = 900
    batch_size: int = 64
    seed: int = 0
    log_every: int = 100
