import os

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

SIGNALS = ["body_acc_x", "body_acc_y", "body_acc_z", "body_gyro_x", "body_gyro_y", "body_gyro_z",
           "total_acc_x", "total_acc_y", "total_acc_z"]


def load_split(root, split):
    xs = [np.loadtxt(os.path.join(root, split, "Inertial Signals", f"{s}_{split}.txt")) for s in SIGNALS]
    x = np.stack(xs, axis=-1).astype(np.float32)                  # (N, 128, 9)
    y = np.loadtxt(os.path.join(root, split, f"y_{split}.txt")).astype(np.int64) - 1
    return torch.from_numpy(x), torch.from_numpy(y)


def get_loaders(root="UCI HAR Dataset", batch_size=64):
    x_tr, y_tr = load_split(root, "train")
    x_te, y_te = load_split(root, "test")
    mean, std = x_tr.mean(dim=(0, 1)), x_tr.std(dim=(0, 1))
    x_tr, x_te = (x_tr - mean) / std, (x_te - mean) / std
    return (DataLoader(TensorDataset(x_tr, y_tr), batch_size=batch_size, shuffle=True, drop_last=True),
            DataLoader(TensorDataset(x_te, y_te), batch_size=256))
