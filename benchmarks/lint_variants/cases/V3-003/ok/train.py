from dataclasses import dataclass, field

import hydra
import torch
from hydra.core.config_store import ConfigStore
from torch.utils.data import DataLoader

from losses import MultiTaskLoss, build_loss
from model import MultiTaskNet


@dataclass
class TrainConfig:
    data_root: str = "data/deepfashion"
    num_categories: int = 50
    num_attributes: int = 26
    batch_size: int = 64
    lr: float = 3e-4
    epochs: int = 30
    attr_pos_weight: float = 3.0
    loss_weights: dict = field(default_factory=lambda: {"category": 1.0, "attributes": 0.5})


cs = ConfigStore.instance()
cs.store(name="train", node=TrainConfig)


@hydra.main(version_base=None, config_name="train")
def main(cfg: TrainConfig):
    from dataset import FashionDataset

    device = "cuda"
    model = MultiTaskNet(cfg.num_categories, cfg.num_attributes).to(device)
    criterion = MultiTaskLoss(
        {
            "category": build_loss("ce", label_smoothing=0.1),
            "attributes": build_loss("bce", pos_weight=[cfg.attr_pos_weight] * cfg.num_attributes),
        },
        cfg.loss_weights,
    )
    train_loader = DataLoader(FashionDataset(cfg.data_root, "train"), batch_size=cfg.batch_size,
                              shuffle=True, num_workers=8, drop_last=True)
    val_loader = DataLoader(FashionDataset(cfg.data_root, "val"), batch_size=cfg.batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        model.train()
        for images, targets in train_loader:
            images = images.to(device)
            targets = {k: v.to(device) for k, v in targets.items()}
            loss, parts = criterion(model(images), targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for images, targets in val_loader:
                out = model(images.to(device))
                correct += (out["category"].argmax(1).cpu() == targets["category"]).sum().item()
                total += images.size(0)
        print(f"epoch {epoch} loss {loss.item():.4f} {parts} cat_acc {correct / total:.4f}")


if __name__ == "__main__":
    main()
