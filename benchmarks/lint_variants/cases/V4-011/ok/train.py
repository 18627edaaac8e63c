import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
import torchvision

from data import build_loader


def get_args():
    p = argparse.ArgumentParser("DDP classification training")
    p.add_argument("--data-path", dest="data_path", required=True)
    p.add_argument("--arch", default="resnet50")
    p.add_argument("--input-size", dest="input_size", type=int, default=224)
    p.add_argument("--batch-size", dest="batch_size", type=int, default=64)
    p.add_argument("--num-workers", dest="num_workers", type=int, default=8)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--output-dir", dest="output_dir", default="checkpoints")
    return p.parse_args()


def train_one_epoch(model, criterion, loader, optimizer, device, epoch, rank):
    model.train()
    t0 = time.time()
    for step, (images, targets) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        loss = criterion(model(images), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if rank == 0 and step % 100 == 0:
            print(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f} ({time.time() - t0:.0f}s)")


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(1, device=device)
    total = torch.zeros(1, device=device)
    for images, targets in loader:
        out = model(images.to(device))
        correct += (out.argmax(1) == targets.to(device)).sum()
        total += targets.numel()
    dist.all_reduce(correct)
    dist.all_reduce(total)
    return (correct / total).item()


def main():
    args = get_args()
    dist.init_process_group("nccl")
    rank, local_rank = dist.get_rank(), int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    train_loader = build_loader(args, is_train=True, distributed=True)
    val_loader = build_loader(args, is_train=False, distributed=True)

    model = getattr(torchvision.models, args.arch)(num_classes=len(train_loader.dataset.classes))
    model = nn.SyncBatchNorm.convert_sync_batchnorm(model).to(device)
    model = DDP(model, device_ids=[local_rank])
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        train_one_epoch(model, criterion, train_loader, optimizer, device, epoch, rank)
        scheduler.step()
        acc = evaluate(model, val_loader, device)
        if rank == 0:
            print(f"epoch {epoch} top1 {acc:.4f}")
            os.makedirs(args.output_dir, exist_ok=True)
            torch.save(model.module.state_dict(), f"{args.output_dir}/checkpoint.pth")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
