import torch.nn as nn


def dense_block(in_features, out_features, dropout):
    return nn.Sequential(
        nn.Linear(in_features, out_features),
        nn.BatchNorm1d(out_features),
        nn.ReLU(),
        nn.Dropout(dropout),
    )


class TabularNet(nn.Module):
    def __init__(self, n_features, hidden=(256, 128, 64), dropout=0.2):
        super().__init__()
        blocks, prev = [], n_features
        for h in hidden:
            blocks.append(dense_block(prev, h, dropout))
            prev = h
        self.body = nn.Sequential(*blocks)
        self.out = nn.Linear(prev, 1)

    def forward(self, x):
        return self.out(self.body(x))
