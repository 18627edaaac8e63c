import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from models import create_model
from utils import AverageMeter, accuracy

parser = argparse.ArgumentParser(description="PyTorch ImageNet Training")
parser.add_argument("data_dir")
parser.add_argument("--model", default="tinynet_a", type=str)
parser.add_argument("--num-classes", type=int, default=1000)
parser.add_argument("--drop", type=float, default=0.2)
parser.add_argument("-b", "--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--log-interval", type=int, default=50)


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, device):
    losses_m = AverageMeter()
    model.train()
    end = time.time()
    for batch_idx, (input, target) in enumerate(loader):
        input, target = input.to(device), target.to(device)
        output = model(input)
        loss = loss_fn(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses_m.update(loss.item(), input.size(0))
        if batch_idx % args.log_interval == 0:
            print(f"Train: {epoch} [{batch_idx}/{len(loader)}] Loss: {losses_m.avg:.4f} "
                  f"Time: {time.time() - end:.3f}s")
        end = time.time()
    return {"loss": losses_m.avg}


def validate(model, loader, loss_fn, device):
    losses_m, top1_m = AverageMeter(), AverageMeter()
    model.eval()
    with torch.no_grad():
        for input, target in loader:
            input, target = input.to(device), target.to(device)
            output = model(input)
            loss = loss_fn(output, target)
            acc1, = accuracy(output, target, topk=(1,))
            losses_m.update(loss.item(), input.size(0))
            top1_m.update(acc1.item(), input.size(0))
    return {"loss": losses_m.avg, "top1": top1_m.avg}


def main():
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = create_model(args.model, num_classes=args.num_classes, drop_rate=args.drop).to(device)
    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()])
    train_ds = datasets.ImageFolder(f"{args.data_dir}/train", transform=tf)
    eval_ds = datasets.ImageFolder(f"{args.data_dir}/val", transform=transforms.Compose(
        [transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()]))
    loader_train = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, num_workers=8)
    loader_eval = DataLoader(eval_ds, batch_size=args.batch_size, num_workers=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    train_loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1).to(device)
    validate_loss_fn = nn.CrossEntropyLoss().to(device)
    for epoch in range(args.epochs):
        train_metrics = train_one_epoch(epoch, model, loader_train, optimizer, train_loss_fn, args, device)
        eval_metrics = validate(model, loader_eval, validate_loss_fn, device)
        print(epoch, train_metrics, eval_metrics)


if __name__ == "__main__":
    main()
