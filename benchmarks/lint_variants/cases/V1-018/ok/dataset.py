import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def load_split(path):
    arr = np.load(path)
    x = torch.from_numpy(arr["fp"].astype(np.float32))
    y = torch.from_numpy(arr["y"].astype(np.float32)).view(len(x), -1)
    return TensorDataset(x, y)


def make_loaders(data_dir, batch_size):
    train = load_split(f"{data_dir}/train.npz")
    valid = load_split(f"{data_dir}/valid.npz")
    y = train.tensors[1]
    stats = (y.mean(0), y.std(0))
    train_loader = DataLoader(train, batch_size=batch_size, shuffle=True, drop_last=True, num_workers=2)
    valid_loader = DataLoader(valid, batch_size=1024)
    return train_loader, valid_loader, stats


def infinite(loader):
    while True:
        for batch in loader:
            yield batch
