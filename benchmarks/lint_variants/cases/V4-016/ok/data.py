import numpy as np
import pandas as pd
import torch
from torch.utils.data import Dataset


class WindowDataset(Dataset):
    def __init__(self, values, target_col, window=168, horizon=24):
        self.values = torch.as_tensor(values, dtype=torch.float32)
        self.target_col = target_col
        self.window = window
        self.horizon = horizon

    def __len__(self):
        return len(self.values) - self.window - self.horizon + 1

    def __getitem__(self, i):
        x = self.values[i:i + self.window]
        y = self.values[i + self.window:i + self.window + self.horizon, self.target_col]
        return x, y


def load_splits(csv_path, target="OT", val_frac=0.2, window=168, horizon=24):
    df = pd.read_csv(csv_path, parse_dates=["date"]).set_index("date")
    values = df.values.astype(np.float32)
    n_train = int(len(values) * (1 - val_frac))
    mean, std = values[:n_train].mean(0), values[:n_train].std(0) + 1e-8
    values = (values - mean) / std
    tcol = df.columns.get_loc(target)
    return (WindowDataset(values[:n_train], tcol, window, horizon),
            WindowDataset(values[n_train - window:], tcol, window, horizon),
            values.shape[1])
