"""One epoch of training and the evaluation pass."""
import torch
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train_one_epoch(model, loader, optimizer, epoch, print_freq=0):
    model.train()
    loss_meter, acc_meter = AverageMeter(), AverageMeter()
    for i, (x, y) in enumerate(loader):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        loss_meter.update(loss.item(), y.numel())
        acc_meter.update((logits.argmax(1) == y).float().mean().item(), y.numel())
        if print_freq and i % print_freq == 0:
            print(f"  epoch {epoch} iter {i:3d}  loss {loss.item():.4f}")
    return {"loss": loss_meter.avg, "acc": acc_meter.avg}


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    loss_meter, acc_meter = AverageMeter(), AverageMeter()
    for x, y in loader:
        logits = model(x)
        loss_meter.update(F.cross_entropy(logits, y).item(), y.numel())
        acc_meter.update((logits.argmax(1) == y).float().mean().item(), y.numel())
    return {"loss": loss_meter.avg, "acc": acc_meter.avg}
