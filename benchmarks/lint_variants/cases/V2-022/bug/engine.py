import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, scheduler, device, epoch, log_freq=50):
    model.train()
    for it, (images, labels) in enumerate(loader):
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        logits = model(images)
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if it % log_freq == 0:
            print(f"[{epoch}][{it}/{len(loader)}] loss {loss.item():.4f} lr {optimizer.param_groups[0]['lr']:.2e}")


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        correct += (model(images).argmax(-1) == labels).sum().item()
        total += labels.numel()
    return 100.0 * correct / total
