import argparse
import logging
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import CLASSES, SatelliteTiles, class_weights
from epochs import TrainEpoch, ValidEpoch
from model import UNet

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger("landcover")


def main():
    parser = argparse.ArgumentParser(description="Land-cover segmentation of 4-band satellite tiles")
    parser.add_argument("--data-root", default="data/tiles")
    parser.add_argument("--epochs", type=int, default=80)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--ckpt", default="checkpoints/unet_landcover.pth")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_ds = SatelliteTiles(args.data_root, "train", augment=True)
    valid_ds = SatelliteTiles(args.data_root, "val")
    train_loader = DataLoader(train_ds, args.batch_size, shuffle=True, num_workers=args.workers, drop_last=True)
    valid_loader = DataLoader(valid_ds, args.batch_size, shuffle=False, num_workers=args.workers)

    model = UNet(in_channels=4, num_classes=len(CLASSES))
    loss = nn.CrossEntropyLoss(weight=class_weights(train_ds))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    train_epoch = TrainEpoch(model, loss, optimizer, len(CLASSES), device=device)
    valid_epoch = ValidEpoch(model, loss, len(CLASSES), device=device)

    best = 0.0
    os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
    for epoch in range(args.epochs):
        logger.info("Epoch %d / lr %.2e", epoch, optimizer.param_groups[0]["lr"])
        train_logs = train_epoch.run(train_loader)
        valid_logs = valid_epoch.run(valid_loader)
        scheduler.step()
        logger.info("train %s | valid %s", train_logs, valid_logs)
        if valid_logs["miou"] > best:
            best = valid_logs["miou"]
            torch.save(model.state_dict(), args.ckpt)
            logger.info("saved new best mIoU %.4f", best)


if __name__ == "__main__":
    main()
