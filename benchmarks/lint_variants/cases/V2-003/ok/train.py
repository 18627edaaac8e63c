import argparse
import os

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms

from engine import train_one_epoch, validate
from utils import save_checkpoint


def parse_opt():
    parser = argparse.ArgumentParser(description="ImageNet training")
    parser.add_argument("data", metavar="DIR")
    parser.add_argument("--arch", default="resnet18")
    parser.add_argument("--epochs", default=90, type=int)
    parser.add_argument("--batch-size", default=256, type=int)
    parser.add_argument("--lr", default=0.1, type=float)
    parser.add_argument("--momentum", default=0.9, type=float)
    parser.add_argument("--wd", default=1e-4, type=float)
    parser.add_argument("--print-freq", default=10, type=int)
    parser.add_argument("--workers", default=8, type=int)
    parser.add_argument("--out", default="runs/exp")
    return parser.parse_args()


def main(opt):
    os.makedirs(opt.out, exist_ok=True)
    model = models.__dict__[opt.arch]().cuda()
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), opt.lr, momentum=opt.momentum, weight_decay=opt.wd)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)

    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_ds = datasets.ImageFolder(os.path.join(opt.data, "train"), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), normalize]))
    val_ds = datasets.ImageFolder(os.path.join(opt.data, "val"), transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))
    train_loader = torch.utils.data.DataLoader(train_ds, batch_size=opt.batch_size, shuffle=True,
                                               num_workers=opt.workers, pin_memory=True)
    val_loader = torch.utils.data.DataLoader(val_ds, batch_size=opt.batch_size, shuffle=False,
                                             num_workers=opt.workers, pin_memory=True)

    best_acc1 = 0.0
    for epoch in range(opt.epochs):
        train_one_epoch(train_loader, model, criterion, optimizer, epoch, opt)
        scheduler.step()
        acc1 = validate(val_loader, model, criterion)
        is_best = acc1 > best_acc1
        best_acc1 = max(acc1, best_acc1)
        save_checkpoint({"epoch": epoch + 1, "arch": opt.arch, "state_dict": model.state_dict(),
                         "best_acc1": best_acc1, "optimizer": optimizer.state_dict()}, is_best, opt.out)


if __name__ == "__main__":
    main(parse_opt())
