import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torchvision.models import resnet50

from data import build_loader


def reduce_mean(t):
    t = t.clone()
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return t / dist.get_world_size()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-dir", required=True)
    parser.add_argument("--val-dir", required=True)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=64, help="per GPU")
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    is_main = dist.get_rank() == 0

    model = resnet50(num_classes=1000).cuda()
    model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model, device_ids=[local_rank])
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * dist.get_world_size() * args.batch_size / 256,
                                momentum=0.9, weight_decay=1e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    train_loader = build_loader(args.train_dir, True, args.batch_size)
    val_loader = build_loader(args.val_dir, False, args.batch_size)

    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for step, (images, targets) in enumerate(train_loader):
            images = images.cuda(non_blocking=True)
            targets = targets.cuda(non_blocking=True)
            loss = criterion(model(images), targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if is_main and step % 100 == 0:
                print(f"epoch {epoch} step {step}/{len(train_loader)} loss {loss.item():.4f}")
        scheduler.step()

        model.eval()
        correct = torch.zeros(1, device="cuda")
        total = torch.zeros(1, device="cuda")
        with torch.no_grad():
            for images, targets in val_loader:
                images, targets = images.cuda(non_blocking=True), targets.cuda(non_blocking=True)
                correct += (model(images).argmax(1) == targets).sum()
                total += targets.numel()
        acc = reduce_mean(correct / total).item()
        if is_main:
            print(f"epoch {epoch} val acc {acc:.4f}")
            torch.save(model.module.state_dict(), f"checkpoint_{epoch:03d}.pth")

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
