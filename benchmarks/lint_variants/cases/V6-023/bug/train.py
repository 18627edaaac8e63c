import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import load_series
from model import LSTMForecaster

COLUMNS = ["load", "temperature", "humidity", "hour_sin", "hour_cos"]


def inverse_target(scaler, y):
    return y * (scaler.data_max_[0] - scaler.data_min_[0]) + scaler.data_min_[0]


def evaluate(model, loader, scaler, device):
    model.eval()
    preds, trues = [], []
    with torch.no_grad():
        for x, y in loader:
            preds.append(model(x.to(device)).cpu().numpy())
            trues.append(y.numpy())
    p, t = inverse_target(scaler, np.concatenate(preds)), inverse_target(scaler, np.concatenate(trues))
    return float(np.mean(np.abs(p - t))), float(np.mean(np.abs(p - t) / np.maximum(np.abs(t), 1e-3)) * 100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default="data/load_hourly.csv")
    ap.add_argument("--lookback", type=int, default=168)
    ap.add_argument("--horizon", type=int, default=24)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_ds, val_ds, test_ds, scaler = load_series(args.csv, COLUMNS, args.lookback, args.horizon)
    train_loader = DataLoader(train_ds, batch_size=64, shuffle=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=256)
    test_loader = DataLoader(test_ds, batch_size=256)
    model = LSTMForecaster(len(COLUMNS), args.horizon).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.MSELoss()
    best, patience = float("inf"), 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x.to(device)), y.to(device))
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        val_mae, val_mape = evaluate(model, val_loader, scaler, device)
        print(f"epoch {epoch} val MAE {val_mae:.3f} MAPE {val_mape:.2f}%")
        if val_mae < best:
            best, patience = val_mae, 0
            torch.save(model.state_dict(), "lstm_best.pt")
        else:
            patience += 1
            if patience >= 8:
                break
    model.load_state_dict(torch.load("lstm_best.pt"))
    print("test MAE %.3f MAPE %.2f%%" % evaluate(model, test_loader, scaler, device))


if __name__ == "__main__":
    main()
