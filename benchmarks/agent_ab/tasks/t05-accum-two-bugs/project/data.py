"""Synthetic classification data labelled by a fixed random "teacher" network."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_teacher(num_features, hidden, num_classes, generator):
    teacher = nn.Sequential(nn.Linear(num_features, hidden), nn.Tanh(),
                            nn.Linear(hidden, num_classes))
    with torch.no_grad():
        for p in teacher.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * (2.0 / p.shape[-1]) ** 0.5)
    return teacher


def make_split(n, teacher, num_features, generator):
    x = torch.randn(n, num_features, generator=generator)
    with torch.no_grad():
        y = teacher(x).argmax(1)
    return TensorDataset(x, y)


def build_loaders(cfg):
    d, t = cfg["data"], cfg["train"]
    g = torch.Generator().manual_seed(cfg["seed"])
    teacher = make_teacher(d["num_features"], d["teacher_hidden"], d["num_classes"], g)
    train = make_split(d["train_size"], teacher, d["num_features"], g)
    val = make_split(d["val_size"], teacher, d["num_features"], g)
    shuffle_g = torch.Generator().manual_seed(cfg["seed"] + 1)
    return (DataLoader(train, batch_size=t["micro_batch_size"], shuffle=True, generator=shuffle_g),
            DataLoader(val, batch_size=500))
