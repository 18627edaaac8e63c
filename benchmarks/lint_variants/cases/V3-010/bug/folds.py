import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from sklearn.model_selection import KFold
from torch.utils.data import DataLoader, TensorDataset

from model import MoANet

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
NFOLDS, EPOCHS, BATCH_SIZE, LR, WD = 5, 25, 128, 1e-3, 1e-5


def train_fn(model, optimizer, scheduler, loss_fn, loader):
    model.train()
    total = 0.0
    for x, y in loader:
        x, y = x.to(DEVICE), y.to(DEVICE)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item()
    return total / len(loader)


def predict_fn(model, loader):
    preds = []
    with torch.no_grad():
        for batch in loader:
            x = batch[0].to(DEVICE)
            preds.append(model(x).sigmoid().cpu().numpy())
    return np.concatenate(preds)


def run_training(fold, X, Y, X_test, trn_idx, val_idx, seed):
    torch.manual_seed(seed)
    train_ds = TensorDataset(torch.tensor(X[trn_idx]), torch.tensor(Y[trn_idx]))
    valid_ds = TensorDataset(torch.tensor(X[val_idx]), torch.tensor(Y[val_idx]))
    train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
    valid_loader = DataLoader(valid_ds, batch_size=BATCH_SIZE * 4)
    test_loader = DataLoader(TensorDataset(torch.tensor(X_test)), batch_size=BATCH_SIZE * 4)

    model = MoANet(X.shape[1], Y.shape[1]).to(DEVICE)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=EPOCHS,
                                                    steps_per_epoch=len(train_loader))
    loss_fn = nn.BCEWithLogitsLoss()
    for epoch in range(EPOCHS):
        train_loss = train_fn(model, optimizer, scheduler, loss_fn, train_loader)
        print(f"FOLD {fold} EPOCH {epoch} train_loss {train_loss:.5f}")

    oof = predict_fn(model, valid_loader)
    test_pred = predict_fn(model, test_loader)
    return oof, test_pred


def run_k_fold(train_features, train_targets, test_features, seed=42):
    X = train_features.values.astype(np.float32)
    Y = train_targets.values.astype(np.float32)
    X_test = test_features.values.astype(np.float32)
    oof = np.zeros_like(Y)
    predictions = np.zeros((len(X_test), Y.shape[1]), dtype=np.float32)
    for fold, (trn_idx, val_idx) in enumerate(KFold(NFOLDS, shuffle=True, random_state=seed).split(X)):
        oof_, pred_ = run_training(fold, X, Y, X_test, trn_idx, val_idx, seed)
        oof[val_idx] = oof_
        predictions += pred_ / NFOLDS
    return oof, predictions


if __name__ == "__main__":
    train_features = pd.read_csv("../input/lish-moa/train_features_processed.csv")
    train_targets = pd.read_csv("../input/lish-moa/train_targets_scored.csv").drop(columns="sig_id")
    test_features = pd.read_csv("../input/lish-moa/test_features_processed.csv")
    oof, predictions = run_k_fold(train_features, train_targets, test_features)
    score = nn.BCELoss()(torch.tensor(oof).clamp(1e-7, 1 - 1e-7), torch.tensor(train_targets.values).float())
    print("CV log_loss:", score.item())
    np.save("test_predictions.npy", predictions)
