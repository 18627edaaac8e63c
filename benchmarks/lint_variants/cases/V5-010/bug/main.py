from types import SimpleNamespace

import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset

from model import LSTMForecaster
from runner import Runner

cfg = SimpleNamespace(seq_len=48, horizon=24, batch_size=64, epochs=30, lr=1e-3, csv="data/ETTh1.csv")


def make_windows(values, seq_len):
    xs, ys = [], []
    for i in range(len(values) - seq_len):
        xs.append(values[i:i + seq_len])
        ys.append(values[i + seq_len])
    return torch.tensor(np.array(xs), dtype=torch.float32), torch.tensor(np.array(ys), dtype=torch.float32)


if __name__ == "__main__":
    df = pd.read_csv(cfg.csv, index_col="date")
    values = df.values.astype("float32")
    mean, std = values[:-cfg.horizon].mean(0), values[:-cfg.horizon].std(0)
    values = (values - mean) / std
    train_values, test_values = values[:-cfg.horizon], values[-cfg.horizon:]
    x, y = make_windows(train_values, cfg.seq_len)
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg.batch_size, shuffle=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    runner = Runner(LSTMForecaster(values.shape[1]), cfg, device)
    for epoch in range(cfg.epochs):
        print(f"epoch {epoch:02d} mse {runner.train_epoch(loader):.5f}")
    pred = runner.forecast(train_values, cfg.horizon)
    mae = np.abs(pred - test_values).mean()
    print(f"{cfg.horizon}-step MAE (normalized): {mae:.4f}")
