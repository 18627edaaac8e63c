import numpy as np
import torch
import torch.nn as nn

from model import CFG


def rmse_loss(pred, target):
    return torch.sqrt(nn.MSELoss()(pred.view(-1), target.view(-1)))


def valid_fn(model, valid_loader, device):
    model.eval()
    preds, targets = [], []
    with torch.no_grad():
        for batch in valid_loader:
            out = model(batch["input_ids"].to(device), batch["attention_mask"].to(device))
            preds.append(out.view(-1).cpu().numpy())
            targets.append(batch["target"].numpy())
    preds, targets = np.concatenate(preds), np.concatenate(targets)
    return float(np.sqrt(np.mean((preds - targets) ** 2)))


def train_fn(model, train_loader, valid_loader, optimizer, scheduler, device, fold, best_rmse):
    model.train()
    for step, batch in enumerate(train_loader):
        input_ids = batch["input_ids"].to(device)
        attention_mask = batch["attention_mask"].to(device)
        target = batch["target"].to(device)
        pred = model(input_ids, attention_mask)
        loss = rmse_loss(pred, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if (step + 1) % CFG.eval_steps == 0 or step == len(train_loader) - 1:
            val_rmse = valid_fn(model, valid_loader, device)
            print(f"step {step + 1}: train_rmse {loss.item():.4f} val_rmse {val_rmse:.4f}")
            if val_rmse < best_rmse:
                best_rmse = val_rmse
                torch.save(model.state_dict(), f"{CFG.output_dir}/model_fold{fold}.pth")
    return best_rmse
