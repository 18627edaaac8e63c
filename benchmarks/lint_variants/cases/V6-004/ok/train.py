import argparse
import os

import segmentation_models_pytorch as smp
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import SegDataset, get_train_augmentation, get_val_augmentation
from engine import evaluate, train_one_epoch


def get_args():
    parser = argparse.ArgumentParser(description="Train UNet")
    parser.add_argument("--data-root", default="data/")
    parser.add_argument("--encoder", default="resnet34")
    parser.add_argument("--num-classes", type=int, default=6)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--out", default="checkpoints/")
    return parser.parse_args()


def main():
    args = get_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(args.out, exist_ok=True)
    train_ds = SegDataset(args.data_root, "train", get_train_augmentation())
    val_ds = SegDataset(args.data_root, "val", get_val_augmentation())
    train_loader = DataLoader(train_ds, args.batch_size, shuffle=True, num_workers=4, drop_last=True)
    val_loader = DataLoader(val_ds, 1, shuffle=False, num_workers=2)
    model = smp.Unet(args.encoder, encoder_weights="imagenet", classes=args.num_classes).to(device)
    criterion = nn.CrossEntropyLoss(ignore_index=255)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    best_miou = 0.0
    for epoch in range(args.epochs):
        train_loss = train_one_epoch(model, train_loader, criterion, optimizer, device, epoch)
        val_loss, scores = evaluate(model, val_loader, criterion, device, args.num_classes)
        scheduler.step()
        print(f"[{epoch}] train {train_loss:.4f} val {val_loss:.4f} {scores}")
        if scores["mIoU"] > best_miou:
            best_miou = scores["mIoU"]
            torch.save(model.state_dict(), os.path.join(args.out, "best.pth"))


if __name__ == "__main__":
    main()
