from dataclasses import dataclass

from trainer import Trainer


@dataclass
class TrainConfig:
    train_bin: str = "data/openwebtext/train.bin"
    val_bin: str = "data/openwebtext/val.bin"
    out_dir: str = "out"
    vocab_size: int = 50304
    block_size: int = 256
    n_layer: int = 6
    n_head: int = 8
    n_embd: int = 512
    batch_size: int = 32
    lr: float = 6e-4
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    epochs: int = 4
    log_interval: int = 50


if __name__ == "__main__":
    Trainer(TrainConfig()).fit()
