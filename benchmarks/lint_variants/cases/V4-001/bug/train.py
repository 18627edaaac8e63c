#!/usr/bin/env python3
import argparse
import time
import logging
from collections import OrderedDict

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T

from utils import AverageMeter, accuracy, save_checkpoint

_logger = logging.getLogger("train")

parser = argparse.ArgumentParser(description="PyTorch ImageNet Training")
parser.add_argument("data_dir", metavar="DIR")
parser.add_argument("--model", default="resnet50", type=str)
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("-b", "--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--weight-decay", type=float, default=1e-4)
parser.add_argument("--log-interval", type=int, default=50)
parser.add_argument("--output", default="./output", type=str)
parser.add_argument("--workers", type=int, default=8)


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, device):
    batch_time_m = AverageMeter()
    losses_m = AverageMeter()
    model.train()

    end = time.time()
    last_idx = len(loader) - 1
    for batch_idx, (input, target) in enumerate(loader):
        input, target = input.to(device), target.to(device)
        output = model(input)
        loss = loss_fn(output, target)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        losses_m.update(loss, input.size(0))
        batch_time_m.update(time.time() - end)
        if batch_idx == last_idx or batch_idx % args.log_interval == 0:
            lr = optimizer.param_groups[0]["lr"]
            _logger.info(
                "Train: {} [{:>4d}/{}]  Loss: {:.4f} ({:.4f})  LR: {:.3e}  Time: {:.3f}s".format(
                    epoch, batch_idx, len(loader), float(losses_m.val), float(losses_m.avg),
                    lr, batch_time_m.avg))
        end = time.time()

    return OrderedDict([("loss", float(losses_m.avg))])


@torch.no_grad()
def validate(model, loader, loss_fn, device):
    losses_m = AverageMeter()
    top1_m = AverageMeter()
    model.eval()
    for input, target in loader:
        input, target = input.to(device), target.to(device)
        output = model(input)
        loss = loss_fn(output, target)
        acc1, = accuracy(output, target, topk=(1,))
        losses_m.update(loss.item(), input.size(0))
        top1_m.update(acc1.item(), input.size(0))
    return OrderedDict([("loss", losses_m.avg), ("top1", top1_m.avg)])


def main():
    logging.basicConfig(level=logging.INFO)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = getattr(torchvision.models, args.model)(num_classes=1000).to(device)
    tf_train = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor()])
    tf_eval = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor()])
    ds_train = torchvision.datasets.ImageFolder(f"{args.data_dir}/train", tf_train)
    ds_eval = torchvision.datasets.ImageFolder(f"{args.data_dir}/val", tf_eval)
    loader_train = torch.utils.data.DataLoader(ds_train, batch_size=args.batch_size, shuffle=True,
                                               num_workers=args.workers, pin_memory=True)
    loader_eval = torch.utils.data.DataLoader(ds_eval, batch_size=args.batch_size,
                                              num_workers=args.workers)

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.weight_decay)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss().to(device)

    best_metric = None
    for epoch in range(args.epochs):
        train_metrics = train_one_epoch(epoch, model, loader_train, optimizer, loss_fn, args, device)
        eval_metrics = validate(model, loader_eval, loss_fn, device)
        lr_scheduler.step()
        if best_metric is None or eval_metrics["top1"] > best_metric:
            best_metric = eval_metrics["top1"]
            save_checkpoint({"epoch": epoch, "state_dict": model.state_dict()}, args.output, "model_best.pth.tar")
        _logger.info(f"epoch {epoch}: train {train_metrics} eval {eval_metrics}")


if __name__ == "__main__":
    main()
