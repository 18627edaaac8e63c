import sys

import torch
import torch.nn as nn
from omegaconf import OmegaConf
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from models import build_model
from utils import evaluate, seed_everything, train_step


def build_loaders(cfg):
    tf_train = transforms.Compose([
        transforms.RandomResizedCrop(cfg.data.img_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    tf_val = transforms.Compose([
        transforms.Resize(int(cfg.data.img_size * 1.14)),
        transforms.CenterCrop(cfg.data.img_size),
        transforms.ToTensor(),
        transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    train_ds = datasets.ImageFolder(cfg.data.train_dir, tf_train)
    val_ds = datasets.ImageFolder(cfg.data.val_dir, tf_val)
    return (DataLoader(train_ds, cfg.train.batch_size, shuffle=True, num_workers=cfg.data.workers, drop_last=True),
            DataLoader(val_ds, cfg.train.batch_size * 2, shuffle=False, num_workers=cfg.data.workers))


def main(cfg):
    seed_everything(cfg.seed)
    device = torch.device("cuda")
    model = build_model(cfg).to(device)
    train_loader, val_loader = build_loaders(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.wd)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg.train.lr,
                                                    total_steps=cfg.train.epochs * len(train_loader))
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.train.amp)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=cfg.train.label_smoothing)

    best = 0.0
    for epoch in range(cfg.train.epochs):
        model.train()
        for step, batch in enumerate(train_loader):
            loss, _ = train_step(model, batch, optimizer, loss_fn, scaler, device, cfg.train.clip_grad)
            scheduler.step()
            if step % cfg.log_every == 0:
                print(f"ep {epoch} it {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}")
        acc = evaluate(model, val_loader, device)
        print(f"ep {epoch} val_acc {acc:.4f}")
        if acc > best:
            best = acc
            torch.save(model.state_dict(), f"{cfg.output_dir}/best.pth")


if __name__ == "__main__":
    cfg = OmegaConf.merge(OmegaConf.load(sys.argv[1]), OmegaConf.from_cli(sys.argv[2:]))
    main(cfg)
