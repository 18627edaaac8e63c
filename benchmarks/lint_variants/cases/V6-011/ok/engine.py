import torch
from monai.data import decollate_batch
from monai.inferers import sliding_window_inference

from utils import AverageMeter


def train_one_epoch(model, loader, optimizer, lr_scheduler, loss_func, scaler, device, epoch):
    model.train()
    run_loss = AverageMeter()
    for idx, batch_data in enumerate(loader):
        data, target = batch_data["image"].to(device), batch_data["label"].to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.amp.autocast():
            logits = model(data)
            loss = loss_func(logits, target)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        lr_scheduler.step()
        run_loss.update(loss.item(), n=data.shape[0])
        if idx % 20 == 0:
            print(f"Epoch {epoch} {idx}/{len(loader)} loss: {run_loss.avg:.4f} "
                  f"lr: {optimizer.param_groups[0]['lr']:.6f}")
    return run_loss.avg


@torch.no_grad()
def val_epoch(model, loader, dice_metric, post_label, post_pred, roi_size, device):
    model.eval()
    for batch_data in loader:
        data, target = batch_data["image"].to(device), batch_data["label"].to(device)
        with torch.cuda.amp.autocast():
            logits = sliding_window_inference(data, roi_size, 4, model, overlap=0.5)
        labels = [post_label(x) for x in decollate_batch(target)]
        outputs = [post_pred(x) for x in decollate_batch(logits)]
        dice_metric(y_pred=outputs, y=labels)
    mean_dice = dice_metric.aggregate().item()
    dice_metric.reset()
    return mean_dice
