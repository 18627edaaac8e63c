import os
from types import SimpleNamespace

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from models import build_model


def load_cfg(path):
    with open(path) as f:
        return SimpleNamespace(**yaml.safe_load(f))


def main(cfg_path="configs/flowers102.yaml"):
    cfg = load_cfg(cfg_path)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf_train = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor()])
    tf_val = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()])
    train_ds = datasets.ImageFolder(os.path.join(cfg.data_root, "train"), tf_train)
    val_ds = datasets.ImageFolder(os.path.join(cfg.data_root, "val"), tf_val)
    train_dl = DataLoader(train_ds, cfg.batch_size, shuffle=True, num_workers=cfg.workers, drop_last=True)
    val_dl = DataLoader(val_ds, cfg.batch_size, num_workers=cfg.workers)

    model = build_model(cfg).to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=cfg.wd)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, cfg.lr, epochs=cfg.epochs,
                                                    steps_per_epoch=len(train_dl))
    best = 0.0
    for epoch in range(cfg.epochs):
        model.train()
        for images, targets in train_dl:
            images, targets = images.to(device), targets.to(device)
            loss = criterion(model(images), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()

        model.eval()
        correct = total = 0
        with torch.no_grad():
            for images, targets in val_dl:
                out = model(images.to(device))
                correct += (out.argmax(1).cpu() == targets).sum().item()
                total += targets.numel()
        acc = correct / total
        print(f"epoch {epoch}: loss {loss.item():.4f} val_acc {acc:.4f}")
        if acc > best:
            best = acc
            torch.save(model.state_dict(), os.path.join(cfg.out_dir, "best.pth"))


if __name__ == "__main__":
    main()
