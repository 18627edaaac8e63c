import torch
import torch.nn as nn


class GaussianNoise(nn.Module):
    def __init__(self, std=0.05):
        super().__init__()
        self.std = std

    def forward(self, x):
        if self.training and self.std > 0:
            return x + torch.randn_like(x) * self.std
        return x


class MoANet(nn.Module):
    def __init__(self, num_features, num_targets, hidden_size=1024, dropout=0.25):
        super().__init__()
        self.net = nn.Sequential(
            GaussianNoise(),
            nn.BatchNorm1d(num_features),
            nn.Dropout(0.2),
            nn.utils.weight_norm(nn.Linear(num_features, hidden_size)),
            nn.LeakyReLU(),
            nn.BatchNorm1d(hidden_size),
            nn.Dropout(dropout),
            nn.utils.weight_norm(nn.Linear(hidden_size, hidden_size)),
            nn.LeakyReLU(),
            nn.BatchNorm1d(hidden_size),
            nn.Dropout(dropout),
            nn.utils.weight_norm(nn.Linear(hidden_size, num_targets)),
        )

    def forward(self, x):
        return self.net(x)
