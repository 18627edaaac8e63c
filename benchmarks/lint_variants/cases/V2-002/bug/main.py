import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from model import LSTMForecaster
from trainer import Trainer


def make_windows(series, lookback, horizon):
    xs, ys = [], []
    for i in range(len(series) - lookback - horizon):
        xs.append(series[i:i + lookback])
        ys.append(series[i + lookback:i + lookback + horizon, 0])
    return torch.tensor(np.stack(xs), dtype=torch.float32), torch.tensor(np.stack(ys), dtype=torch.float32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--csv", required=True)
    parser.add_argument("--lookback", type=int, default=96)
    parser.add_argument("--horizon", type=int, default=24)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    data = np.loadtxt(args.csv, delimiter=",", skiprows=1)
    data = (data - data.mean(0)) / (data.std(0) + 1e-8)
    split = int(0.8 * len(data))
    x_tr, y_tr = make_windows(data[:split], args.lookback, args.horizon)
    x_va, y_va = make_windows(data[split:], args.lookback, args.horizon)
    train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(x_va, y_va), batch_size=args.batch_size)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = LSTMForecaster(data.shape[1], horizon=args.horizon)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    Trainer(model, optimizer, train_loader, val_loader, device).fit(args.epochs)


if __name__ == "__main__":
    main()
