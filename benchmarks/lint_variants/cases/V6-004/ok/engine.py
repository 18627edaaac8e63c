import torch
from tqdm import tqdm

from metrics import RunningScore, iou_score, pixel_accuracy


def train_one_epoch(model, loader, criterion, optimizer, device, epoch):
    model.train()
    running_loss = 0.0
    pbar = tqdm(loader, desc=f"train {epoch}")
    for images, masks in pbar:
        images = images.to(device, non_blocking=True)
        masks = masks.to(device, non_blocking=True).long()
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, masks)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        pbar.set_postfix(loss=f"{loss.item():.4f}")
    return running_loss / len(loader)


@torch.no_grad()
def evaluate(model, loader, criterion, device, num_classes):
    model.eval()
    score = RunningScore()
    val_loss = 0.0
    for images, masks in loader:
        images = images.to(device)
        masks = masks.to(device).long()
        outputs = model(images)
        val_loss += criterion(outputs, masks).item()
        score.update(iou_score(outputs, masks, num_classes), pixel_accuracy(outputs, masks))
    return val_loss / len(loader), score.get()
