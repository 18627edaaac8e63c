import numpy as np
import pandas as pd
import torch
from sklearn.preprocessing import MinMaxScaler
from torch.utils.data import Dataset


class WindowDataset(Dataset):
    def __init__(self, series, lookback, horizon):
        self.series = torch.tensor(series, dtype=torch.float32)
        self.lookback = lookback
        self.horizon = horizon

    def __len__(self):
        return len(self.series) - self.lookback - self.horizon + 1

    def __getitem__(self, i):
        x = self.series[i:i + self.lookback]
        y = self.series[i + self.lookback:i + self.lookback + self.horizon, 0]
        return x, y


def load_series(csv_path, columns, lookback=168, horizon=24, val_ratio=0.1, test_ratio=0.2):
    df = pd.read_csv(csv_path, parse_dates=["timestamp"]).sort_values("timestamp")
    values = df[columns].interpolate().values.astype(np.float32)
    scaler = MinMaxScaler(feature_range=(0, 1))
    n = len(values)
    n_test = int(n * test_ratio)
    n_val = int(n * val_ratio)
    scaler.fit(values[:n - n_val - n_test])
    values = scaler.transform(values)
    train = values[:n - n_val - n_test]
    val = values[n - n_val - n_test - lookback:n - n_test]
    test = values[n - n_test - lookback:]
    return (WindowDataset(train, lookback, horizon), WindowDataset(val, lookback, horizon),
            WindowDataset(test, lookback, horizon), scaler)
