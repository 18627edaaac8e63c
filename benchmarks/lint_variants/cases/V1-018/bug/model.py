import torch.nn as nn


class ResidualMLPBlock(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.BatchNorm1d(dim), nn.ReLU(), nn.Dropout(dropout), nn.Linear(dim, dim),
            nn.BatchNorm1d(dim), nn.ReLU(), nn.Dropout(dropout), nn.Linear(dim, dim),
        )

    def forward(self, x):
        return x + self.net(x)


class FingerprintRegressor(nn.Module):
    def __init__(self, in_dim=2048, hidden=1024, n_blocks=3, n_tasks=1, dropout=0.2):
        super().__init__()
        self.inp = nn.Linear(in_dim, hidden)
        self.blocks = nn.Sequential(*[ResidualMLPBlock(hidden, dropout) for _ in range(n_blocks)])
        self.out = nn.Sequential(nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, n_tasks))

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))
