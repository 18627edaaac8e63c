import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def load_fraud(path="data/creditcard.npz", val_frac=0.2, seed=42):
    arr = np.load(path)
    X, y = arr["X"].astype(np.float32), arr["y"].astype(np.float32)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(X))
    n_val = int(len(X) * val_frac)
    val_idx, train_idx = idx[:n_val], idx[n_val:]
    mean, std = X[train_idx].mean(0), X[train_idx].std(0) + 1e-6
    X = (X - mean) / std
    return (X[train_idx], y[train_idx]), (X[val_idx], y[val_idx])


def make_loaders(train, val, batch_size):
    train_ds = TensorDataset(torch.from_numpy(train[0]), torch.from_numpy(train[1]))
    val_ds = TensorDataset(torch.from_numpy(val[0]), torch.from_numpy(val[1]))
    return (DataLoader(train_ds, batch_size=batch_size, shuffle=True, drop_last=True),
            DataLoader(val_ds, batch_size=4096))
