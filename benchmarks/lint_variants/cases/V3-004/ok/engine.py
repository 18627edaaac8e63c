import math
import sys

import torch


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, loss_scaler=None,
                    max_norm=None, print_freq=100):
    model.train(True)
    for it, (samples, targets) in enumerate(data_loader):
        samples = samples.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.cuda.amp.autocast():
            outputs = model(samples)
            loss = criterion(samples, outputs, targets)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)
        optimizer.zero_grad()
        loss_scaler.scale(loss).backward()
        if max_norm is not None:
            loss_scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        loss_scaler.step(optimizer)
        loss_scaler.update()
        if it % print_freq == 0:
            print(f"Epoch: [{epoch}] [{it}/{len(data_loader)}] loss: {loss_value:.4f} "
                  f"lr: {optimizer.param_groups[0]['lr']:.6f}")


@torch.no_grad()
def evaluate(data_loader, model, device):
    criterion = torch.nn.CrossEntropyLoss()
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for images, target in data_loader:
        images, target = images.to(device), target.to(device)
        with torch.cuda.amp.autocast():
            output = model(images)
            loss_sum += criterion(output, target).item() * images.size(0)
        correct += (output.argmax(1) == target).sum().item()
        total += images.size(0)
    return {"loss": loss_sum / total, "acc1": 100.0 * correct / total}
