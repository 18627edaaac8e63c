# ====================================================
# Library
# ====================================================
import time

import numpy as np
import pandas as pd
import timm
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import TrainDataset, get_transforms
from utils import get_score, seed_everything, timeSince


# ====================================================
# CFG
# ====================================================
class CFG:
    model_name = "resnet34d"
    size = 384
    epochs = 8
    lr = 1e-4
    batch_size = 32
    num_workers = 4
    target_size = 5
    print_freq = 100
    seed = 42
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


seed_everything(CFG.seed)


# ====================================================
# Helper functions
# ====================================================
def train_fn(train_loader, model, criterion, optimizer, epoch, device):
    model.train()
    losses = []
    start = time.time()
    for step, (images, labels) in enumerate(train_loader):
        images = images.to(device)
        labels = labels.to(device)
        y_preds = model(images)
        loss = criterion(y_preds, labels)
        losses.append(loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % CFG.print_freq == 0 or step == (len(train_loader) - 1):
            print(f"Epoch: [{epoch + 1}][{step}/{len(train_loader)}] "
                  f"Elapsed {timeSince(start)} Loss: {loss.item():.4f}")
    return torch.stack(losses).mean().item()


def valid_fn(valid_loader, model, criterion, device):
    model.eval()
    losses, preds = [], []
    for images, labels in valid_loader:
        images = images.to(device)
        labels = labels.to(device)
        with torch.no_grad():
            y_preds = model(images)
        losses.append(criterion(y_preds, labels).item())
        preds.append(y_preds.softmax(1).cpu().numpy())
    return float(np.mean(losses)), np.concatenate(preds)


# ====================================================
# Train loop
# ====================================================
def train_loop(folds, fold):
    trn = folds[folds.fold != fold].reset_index(drop=True)
    val = folds[folds.fold == fold].reset_index(drop=True)
    train_loader = DataLoader(TrainDataset(trn, transform=get_transforms("train", CFG.size)),
                              batch_size=CFG.batch_size, shuffle=True,
                              num_workers=CFG.num_workers, drop_last=True)
    valid_loader = DataLoader(TrainDataset(val, transform=get_transforms("valid", CFG.size)),
                              batch_size=CFG.batch_size * 2, shuffle=False,
                              num_workers=CFG.num_workers)
    model = timm.create_model(CFG.model_name, pretrained=True, num_classes=CFG.target_size)
    model.to(CFG.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG.lr)
    criterion = nn.CrossEntropyLoss()
    best_score = 0.0
    for epoch in range(CFG.epochs):
        avg_loss = train_fn(train_loader, model, criterion, optimizer, epoch, CFG.device)
        avg_val_loss, preds = valid_fn(valid_loader, model, criterion, CFG.device)
        score = get_score(val["label"].values, preds)
        print(f"Epoch {epoch + 1} - avg_train_loss: {avg_loss:.4f} "
              f"avg_val_loss: {avg_val_loss:.4f} Accuracy: {score:.4f}")
        if score > best_score:
            best_score = score
            torch.save({"model": model.state_dict()}, f"{CFG.model_name}_fold{fold}_best.pth")
    return best_score


if __name__ == "__main__":
    folds = pd.read_csv("../input/train_folds.csv")
    for fold in range(5):
        train_loop(folds, fold)
