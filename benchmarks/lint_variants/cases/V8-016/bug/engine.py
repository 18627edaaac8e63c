import logging

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score

logger = logging.getLogger(__name__)
criterion = nn.BCEWithLogitsLoss()


def train_epoch(model, loader, optimizer, device, log_interval=50):
    model.train()
    running, n = 0.0, 0
    for step, batch in enumerate(loader):
        batch = batch.to(device)
        logits = model(batch).squeeze()
        target = batch.y.view(-1).float()
        loss = criterion(logits, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item() * batch.num_graphs
        n += batch.num_graphs
        if step % log_interval == 0:
            logger.info("step %d loss %.4f", step, loss.item())
    return running / max(n, 1)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    y_true, y_score = [], []
    for batch in loader:
        batch = batch.to(device)
        y_score.append(torch.sigmoid(model(batch)).view(-1).cpu())
        y_true.append(batch.y.view(-1).cpu())
    y_true = torch.cat(y_true).numpy()
    y_score = torch.cat(y_score).numpy()
    if len(np.unique(y_true)) < 2:
        return float("nan")
    return roc_auc_score(y_true, y_score)


class EarlyStopping:
    def __init__(self, patience=20, mode="max"):
        self.patience = patience
        self.mode = mode
        self.best = None
        self.bad_epochs = 0

    def step(self, value):
        improved = self.best is None or (value > self.best if self.mode == "max" else value < self.best)
        if improved:
            self.best = value
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        return improved, self.bad_epochs >= self.patience
