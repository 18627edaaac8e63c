import os

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as transforms

from opts import parse_opts
from utils import AverageMeter, Logger, accuracy, compute_accuracy


def train_epoch(epoch, model, loader, criterion, optimizer, device, logger):
    model.train()
    losses, top1 = AverageMeter(), AverageMeter()
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), inputs.size(0))
        top1.update(accuracy(outputs, targets)[0].item(), inputs.size(0))
    logger.log({"epoch": epoch, "loss": losses.avg, "acc": top1.avg, "lr": optimizer.param_groups[0]["lr"]})


if __name__ == "__main__":
    opt = parse_opts()
    os.makedirs(opt.result_path, exist_ok=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    norm = transforms.Normalize((0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762))
    train_tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), norm])
    test_tf = transforms.Compose([transforms.ToTensor(), norm])
    train_set = torchvision.datasets.CIFAR100(opt.data_root, train=True, download=True, transform=train_tf)
    test_set = torchvision.datasets.CIFAR100(opt.data_root, train=False, download=True, transform=test_tf)
    train_loader = torch.utils.data.DataLoader(train_set, opt.batch_size, shuffle=True, num_workers=opt.n_threads)
    test_loader = torch.utils.data.DataLoader(test_set, opt.batch_size, shuffle=False, num_workers=opt.n_threads)

    model = getattr(torchvision.models, opt.arch)(num_classes=opt.n_classes).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=opt.learning_rate, momentum=opt.momentum,
                                weight_decay=opt.weight_decay, nesterov=True)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=opt.milestones, gamma=0.2)
    train_logger = Logger(os.path.join(opt.result_path, "train.log"), ["epoch", "loss", "acc", "lr"])

    best_acc = 0.0
    for epoch in range(1, opt.n_epochs + 1):
        train_epoch(epoch, model, train_loader, criterion, optimizer, device, train_logger)
        scheduler.step()
        acc1, acc5, val_loss = compute_accuracy(model, test_loader, device, criterion)
        print(f"Epoch {epoch}: test loss {val_loss:.4f} top1 {acc1:.2f} top5 {acc5:.2f}")
        if acc1 > best_acc:
            best_acc = acc1
            torch.save({"epoch": epoch, "state_dict": model.state_dict()},
                       os.path.join(opt.result_path, "best.pth"))
