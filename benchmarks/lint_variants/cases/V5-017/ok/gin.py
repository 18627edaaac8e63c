import dgl
import torch.nn as nn
import torch.nn.functional as F
from dgl.nn import GINConv, SumPooling


class GIN(nn.Module):
    def __init__(self, in_dim, hidden_dim, n_classes, num_layers=5, dropout=0.5):
        super().__init__()
        self.layers = nn.ModuleList()
        self.bns = nn.ModuleList()
        for i in range(num_layers - 1):
            mlp = nn.Sequential(nn.Linear(in_dim if i == 0 else hidden_dim, hidden_dim), nn.BatchNorm1d(hidden_dim),
                                nn.ReLU(), nn.Linear(hidden_dim, hidden_dim))
            self.layers.append(GINConv(mlp, learn_eps=False))
            self.bns.append(nn.BatchNorm1d(hidden_dim))
        self.pool = SumPooling()
        self.drop = nn.Dropout(dropout)
        self.classify = nn.Linear(hidden_dim, n_classes)

    def forward(self, g, h):
        for layer, bn in zip(self.layers, self.bns):
            h = F.relu(bn(layer(g, h)))
        hg = self.pool(g, h)
        return self.classify(self.drop(hg))


def collate(samples):
    graphs, labels = map(list, zip(*samples))
    import torch
    return dgl.batch(graphs), torch.tensor(labels)
