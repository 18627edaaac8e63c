import time

import torch

from utils import AverageMeter, accuracy


def train_one_epoch(train_loader, model, criterion, optimizer, epoch, opt):
    batch_time = AverageMeter("Time", ":6.3f")
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    top5 = AverageMeter("Acc@5", ":6.2f")

    model.train()
    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        images = images.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)

        output = model(images)
        loss = criterion(output, target)

        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss, images.size(0))
        top1.update(acc1[0].item(), images.size(0))
        top5.update(acc5[0].item(), images.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        batch_time.update(time.time() - end)
        end = time.time()
        if i % opt.print_freq == 0:
            print(f"Epoch [{epoch}][{i}/{len(train_loader)}]\t{batch_time}\t{losses}\t{top1}\t{top5}")
    return losses.avg


@torch.no_grad()
def validate(val_loader, model, criterion):
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    model.eval()
    for images, target in val_loader:
        images = images.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        output = model(images)
        loss = criterion(output, target)
        acc1, = accuracy(output, target, topk=(1,))
        losses.update(loss.item(), images.size(0))
        top1.update(acc1[0].item(), images.size(0))
    print(f" * Acc@1 {top1.avg:.3f}  Loss {losses.avg:.4f}")
    return top1.avg
