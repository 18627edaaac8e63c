import argparse
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision
from sklearn.metrics import roc_auc_score
from torch.nn.parallel import DistributedDataParallel as DDP

from data import LABELS, build_loaders


def get_cfg():
    p = argparse.ArgumentParser()
    p.add_argument("--root", default="/data/CheXpert-v1.0-small/..")
    p.add_argument("--train_csv", default="/data/CheXpert-v1.0-small/train.csv")
    p.add_argument("--val_csv", default="/data/CheXpert-v1.0-small/valid.csv")
    p.add_argument("--size", type=int, default=320)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=1e-4)
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    probs, targets = [], []
    for x, y in loader:
        probs.append(torch.sigmoid(model(x.to(device))).cpu())
        targets.append(y)
    probs, targets = torch.cat(probs).numpy(), torch.cat(targets).numpy()
    return float(np.mean([roc_auc_score(targets[:, k], probs[:, k]) for k in range(len(LABELS))]))


def main():
    cfg = get_cfg()
    dist.init_process_group("nccl")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    train_loader, val_loader, train_sampler = build_loaders(cfg, rank, world_size)
    net = torchvision.models.densenet121(weights="IMAGENET1K_V1")
    net.classifier = nn.Linear(net.classifier.in_features, len(LABELS))
    model = DDP(net.to(device), device_ids=[local_rank])
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, betas=(0.9, 0.999))
    for epoch in range(cfg.epochs):
        model.train()
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if rank == 0 and step % 100 == 0:
                print(f"epoch {epoch} step {step}/{len(train_loader)} loss {loss.item():.4f}")
        auc = evaluate(model, val_loader, device)
        if rank == 0:
            print(f"epoch {epoch} val mean AUC (rank-0 shard) {auc:.4f}")
            torch.save(model.module.state_dict(), f"densenet121_ep{epoch}.pth")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
