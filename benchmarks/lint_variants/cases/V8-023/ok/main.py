import argparse
import logging
import os
import shutil

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import TSNDataSet, train_transform, val_transform
from models import TSN
from ops import AverageMeter, accuracy

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("tsn")


def get_parser():
    p = argparse.ArgumentParser(description="TSN training on UCF101 rawframes")
    p.add_argument("--root", default="data/ucf101/rawframes")
    p.add_argument("--train-list", default="data/ucf101/ucf101_train_split_1_rawframes.txt")
    p.add_argument("--val-list", default="data/ucf101/ucf101_val_split_1_rawframes.txt")
    p.add_argument("--num-class", type=int, default=101)
    p.add_argument("--arch", default="resnet50")
    p.add_argument("--num-segments", type=int, default=3)
    p.add_argument("--consensus-type", default="avg")
    p.add_argument("--epochs", type=int, default=80)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--lr-steps", type=int, nargs="+", default=[30, 60])
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--clip-gradient", type=float, default=20.0)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--snapshot-pref", default="checkpoints/tsn_ucf101")
    return p


def run_epoch(model, loader, criterion, device, optimizer=None, clip=None):
    training = optimizer is not None
    model.train(training)
    losses, top1 = AverageMeter(), AverageMeter()
    with torch.set_grad_enabled(training):
        for clips, target in loader:
            clips, target = clips.to(device, non_blocking=True), target.to(device)
            output = model(clips)
            loss = criterion(output, target)
            if training:
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), clip)
                optimizer.step()
            losses.update(loss.item(), clips.size(0))
            top1.update(accuracy(output, target)[0], clips.size(0))
    return losses.avg, top1.avg


def main():
    args = get_parser().parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TSN(args.num_class, args.num_segments, args.arch, consensus_type=args.consensus_type).to(device)
    train_loader = DataLoader(TSNDataSet(args.root, args.train_list, args.num_segments, transform=train_transform()),
                              batch_size=args.batch_size, shuffle=True, num_workers=args.workers, drop_last=True)
    val_loader = DataLoader(TSNDataSet(args.root, args.val_list, args.num_segments, random_shift=False,
                                       transform=val_transform()), batch_size=args.batch_size, num_workers=args.workers)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.get_optim_policies(args.lr, args.weight_decay), args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, args.lr_steps, gamma=0.1)
    best = 0.0
    os.makedirs(os.path.dirname(args.snapshot_pref), exist_ok=True)
    for epoch in range(args.epochs):
        tr_loss, tr_acc = run_epoch(model, train_loader, criterion, device, optimizer, args.clip_gradient)
        val_loss, val_acc = run_epoch(model, val_loader, criterion, device)
        scheduler.step()
        log.info("epoch %d train loss %.4f acc %.2f | val loss %.4f acc %.2f", epoch, tr_loss, tr_acc, val_loss, val_acc)
        path = f"{args.snapshot_pref}_checkpoint.pth.tar"
        torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "best_prec1": best}, path)
        if val_acc > best:
            best = val_acc
            shutil.copyfile(path, f"{args.snapshot_pref}_model_best.pth.tar")


if __name__ == "__main__":
    main()
