import sys

import torch
from timm.data import create_transform, resolve_data_config
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder

from engine import evaluate, train_one_epoch
from utils import build_model, build_optimizer, freeze_backbone, load_cfg


def main(cfg_path):
    cfg = load_cfg(cfg_path)
    device = torch.device("cuda")

    model = build_model(cfg)
    data_cfg = resolve_data_config({}, model=model)
    train_ds = ImageFolder(cfg.data.train, create_transform(**data_cfg, is_training=True, auto_augment="rand-m9-mstd0.5"))
    val_ds = ImageFolder(cfg.data.val, create_transform(**data_cfg))
    train_loader = DataLoader(train_ds, cfg.data.batch_size, shuffle=True, num_workers=8, drop_last=True)
    val_loader = DataLoader(val_ds, cfg.data.batch_size, num_workers=8)

    freeze_backbone(model, cfg.finetune.trainable_blocks)
    model.reset_classifier(len(train_ds.classes))
    optimizer = build_optimizer(cfg, model)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg.optim.lr, pct_start=0.1,
                                                    total_steps=cfg.epochs * len(train_loader))
    model.to(device)

    best = 0.0
    for epoch in range(cfg.epochs):
        train_one_epoch(model, train_loader, optimizer, scheduler, device, epoch)
        acc = evaluate(model, val_loader, device)
        print(f"epoch {epoch}: top1 {acc:.2f}")
        if acc > best:
            best = acc
            torch.save(model.state_dict(), f"{cfg.output_dir}/finetuned_best.pth")


if __name__ == "__main__":
    main(sys.argv[1])
