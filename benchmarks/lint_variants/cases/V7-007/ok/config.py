import argparse
import dataclasses
import json
from dataclasses import dataclass, field
from typing import List, Optional, Tuple


@dataclass
class DataConfig:
    root: str = "data/landcover"
    tile_size: int = 512
    bands: Tuple[str, ...] = ("B04", "B03", "B02", "B08")
    classes: List[str] = field(default_factory=lambda: [
        "background", "building", "road", "water", "barren", "forest", "agriculture"])
    ignore_index: int = 255
    num_workers: int = 8


@dataclass
class ModelConfig:
    arch: str = "unet"
    encoder: str = "resnet34"
    encoder_weights: Optional[str] = "imagenet"
    decoder_channels: Tuple[int, ...] = (256, 128, 64, 32, 16)
    activation: Optional[str] = None
    dropout: float = 0.1


@dataclass
class OptimConfig:
    lr: float = 3e-4
    weight_decay: float = 1e-4
    epochs: int = 60
    batch_size: int = 16
    warmup_epochs: int = 2
    dice_weight: float = 0.5


@dataclass
class ExperimentConfig:
    name: str = "unet_r34_landcover"
    out_dir: str = "runs"
    seed: int = 17
    amp: bool = True
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)

    @property
    def num_classes(self) -> int:
        return len(self.data.classes)

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2)


def load_config(argv=None) -> ExperimentConfig:
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=None, help="json file overriding defaults")
    p.add_argument("--name", default=None)
    p.add_argument("--encoder", default=None)
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument("--lr", type=float, default=None)
    args = p.parse_args(argv)
    cfg = ExperimentConfig()
    if args.config:
        with open(args.config) as f:
            raw = json.load(f)
        cfg = ExperimentConfig(
            name=raw.get("name", cfg.name),
            data=DataConfig(**raw.get("data", {})),
            model=ModelConfig(**raw.get("model", {})),
            optim=OptimConfig(**raw.get("optim", {})),
        )
    if args.name:
        cfg.name = args.name
    if args.encoder:
        cfg.model.encoder = args.encoder
    if args.epochs:
        cfg.optim.epochs = args.epochs
    if args.lr:
        cfg.optim.lr = args.lr
    return cfg
