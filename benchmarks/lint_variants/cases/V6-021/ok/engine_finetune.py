import math
import sys

import torch

import misc


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, loss_scaler,
                    max_norm=None, mixup_fn=None, args=None):
    model.train(True)
    loss_meter = misc.SmoothedValue()
    accum_iter = args.accum_iter
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(data_loader):
        if data_iter_step % accum_iter == 0:
            misc.adjust_learning_rate(optimizer, data_iter_step / len(data_loader) + epoch, args)
        samples = samples.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        if mixup_fn is not None:
            samples, targets = mixup_fn(samples, targets)

        with torch.cuda.amp.autocast():
            outputs = model(samples)
            loss = criterion(outputs, targets)

        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print("Loss is {}, stopping training".format(loss_value))
            sys.exit(1)

        loss /= accum_iter
        loss_scaler(loss, optimizer, clip_grad=max_norm, parameters=model.parameters(),
                    update_grad=(data_iter_step + 1) % accum_iter == 0)
        if (data_iter_step + 1) % accum_iter == 0:
            optimizer.zero_grad()
        torch.cuda.synchronize()
        loss_meter.update(loss_value)
    print("Epoch {} averaged loss: {:.4f}".format(epoch, loss_meter.global_avg))
    return {"loss": loss_meter.global_avg}


@torch.no_grad()
def evaluate(data_loader, model, device):
    model.eval()
    correct, total = 0, 0
    for images, target in data_loader:
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        with torch.cuda.amp.autocast():
            output = model(images)
        correct += (output.argmax(-1) == target).sum().item()
        total += target.size(0)
    return {"acc1": 100.0 * correct / max(total, 1)}
