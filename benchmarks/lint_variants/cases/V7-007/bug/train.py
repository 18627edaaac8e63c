import glob
import logging
import os
import random

import numpy as np
import rasterio
import torch
from torch.utils.data import DataLoader, Dataset

from config import ExperimentConfig, load_config
from losses import CEDiceLoss, confusion, miou_from_confusion
from models import build_model

log = logging.getLogger("train")


class TileDataset(Dataset):
    def __init__(self, cfg: ExperimentConfig, split: str, augment: bool = False):
        self.images = sorted(glob.glob(os.path.join(cfg.data.root, split, "images", "*.tif")))
        self.masks = [p.replace("images", "masks") for p in self.images]
        self.augment = augment

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        with rasterio.open(self.images[i]) as src:
            img = src.read().astype(np.float32) / 10000.0
        with rasterio.open(self.masks[i]) as src:
            mask = src.read(1).astype(np.int64)
        if self.augment:
            k = random.randint(0, 3)
            img, mask = np.rot90(img, k, (1, 2)).copy(), np.rot90(mask, k).copy()
            if random.random() < 0.5:
                img, mask = img[:, :, ::-1].copy(), mask[:, ::-1].copy()
        return torch.from_numpy(img), torch.from_numpy(mask)


def main():
    cfg = load_config()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    torch.manual_seed(cfg.seed)
    out = os.path.join(cfg.out_dir, cfg.name)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        f.write(cfg.to_json())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_dl = DataLoader(TileDataset(cfg, "train", augment=True), cfg.optim.batch_size, shuffle=True,
                          num_workers=cfg.data.num_workers, drop_last=True, pin_memory=True)
    val_dl = DataLoader(TileDataset(cfg, "val"), cfg.optim.batch_size, num_workers=cfg.data.num_workers)
    model = build_model(cfg.model, len(cfg.data.bands), cfg.num_classes).to(device)
    criterion = CEDiceLoss(cfg.optim.dice_weight, cfg.data.ignore_index).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
    total = cfg.optim.epochs * len(train_dl)
    warm = cfg.optim.warmup_epochs * len(train_dl)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + np.cos(np.pi * (s - warm) / (total - warm))))
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp)

    best = 0.0
    for epoch in range(cfg.optim.epochs):
        model.train()
        running = 0.0
        for img, mask in train_dl:
            img, mask = img.to(device, non_blocking=True), mask.to(device, non_blocking=True)
            with torch.autocast(device.type, enabled=cfg.amp):
                loss = criterion(model(img), mask)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            sched.step()
            running += loss.item()
        model.eval()
        cm = torch.zeros(cfg.num_classes, cfg.num_classes, dtype=torch.long, device=device)
        with torch.no_grad():
            for img, mask in val_dl:
                img, mask = img.to(device), mask.to(device)
                cm += confusion(model(img).argmax(1), mask, cfg.num_classes, cfg.data.ignore_index)
        ious = miou_from_confusion(cm)
        miou = ious.mean().item()
        log.info("epoch %d loss %.4f mIoU %.4f | %s", epoch, running / len(train_dl), miou,
                 " ".join(f"{c}={v:.3f}" for c, v in zip(cfg.data.classes, ious.tolist())))
        torch.save({"model": model.state_dict(), "epoch": epoch}, os.path.join(out, "last.pth"))
        if miou > best:
            best = miou
            torch.save({"model": model.state_dict(), "epoch": epoch}, os.path.join(out, "best.pth"))


if __name__ == "__main__":
    main()
