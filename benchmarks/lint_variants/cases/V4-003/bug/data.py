import numpy as np
import pandas as pd
import torch
from torch.utils.data import Dataset, DataLoader
from sklearn.model_selection import StratifiedKFold


class TabularDataset(Dataset):
    def __init__(self, X, y):
        self.X = torch.as_tensor(X, dtype=torch.float32)
        self.y = torch.as_tensor(y, dtype=torch.long)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        return self.X[idx], self.y[idx]


def load_frame(path, target="label"):
    df = pd.read_csv(path)
    y = df.pop(target).values
    return df.values.astype(np.float32), y


def make_folds(X, y, n_splits=5, batch_size=256, seed=42):
    skf = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    for fold, (tr, va) in enumerate(skf.split(X, y)):
        mu, sd = X[tr].mean(0), X[tr].std(0) + 1e-6
        train_dl = DataLoader(TabularDataset((X[tr] - mu) / sd, y[tr]), batch_size=batch_size, shuffle=True)
        valid_dl = DataLoader(TabularDataset((X[va] - mu) / sd, y[va]), batch_size=batch_size)
        yield fold, train_dl, valid_dl
