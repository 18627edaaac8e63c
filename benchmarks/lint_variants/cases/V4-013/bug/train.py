import argparse

import torch
import torch.nn as nn
import torchvision
import yaml
from torch.utils.data import DataLoader

from losses import build_loss
from dataset import MultiLabelImages


def build_model(num_classes, pretrained=True):
    m = torchvision.models.efficientnet_b0(weights="IMAGENET1K_V1" if pretrained else None)
    m.classifier[1] = nn.Linear(m.classifier[1].in_features, num_classes)
    return m


@torch.no_grad()
def evaluate(model, loader, device, thr=0.5):
    model.eval()
    tp = fp = fn = 0
    for x, y in loader:
        pred = (torch.sigmoid(model(x.to(device))) > thr).float()
        y = y.to(device)
        tp += (pred * y).sum().item()
        fp += (pred * (1 - y)).sum().item()
        fn += ((1 - pred) * y).sum().item()
    return 2 * tp / max(2 * tp + fp + fn, 1)


def main(cfg):
    device = torch.device(cfg["device"])
    train_ds = MultiLabelImages(cfg["train_csv"], cfg["image_dir"], train=True)
    val_ds = MultiLabelImages(cfg["val_csv"], cfg["image_dir"], train=False)
    train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=8)
    val_dl = DataLoader(val_ds, batch_size=cfg["batch_size"], num_workers=8)

    model = build_model(train_ds.num_classes).to(device)
    criterion = build_loss(cfg["loss"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    scaler = torch.cuda.amp.GradScaler()

    for epoch in range(cfg["epochs"]):
        model.train()
        for i, (x, y) in enumerate(train_dl):
            x, y = x.to(device), y.to(device)
            with torch.autocast("cuda", dtype=torch.float16):
                logits = model(x)
            loss = criterion(logits.float(), y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            if i % 50 == 0:
                print(f"ep {epoch} it {i} loss {loss.item():.4f}")
        print(f"ep {epoch} val F1 {evaluate(model, val_dl, device):.4f}")
        torch.save(model.state_dict(), cfg["ckpt"])


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    with open(ap.parse_args().config) as f:
        main(yaml.safe_load(f))
