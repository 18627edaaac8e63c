import torch
import torch.nn as nn
from torch_geometric.nn import GINEConv, global_add_pool, global_mean_pool

NUM_ATOM_TYPES = 120
NUM_CHIRALITY = 9
NUM_BOND_TYPES = 6
NUM_BOND_DIRS = 6


class AtomEncoder(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.atom = nn.Embedding(NUM_ATOM_TYPES, emb_dim)
        self.chir = nn.Embedding(NUM_CHIRALITY, emb_dim)

    def forward(self, x):
        return self.atom(x[:, 0]) + self.chir(x[:, 1])


class BondEncoder(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.bond = nn.Embedding(NUM_BOND_TYPES, emb_dim)
        self.dir = nn.Embedding(NUM_BOND_DIRS, emb_dim)

    def forward(self, e):
        return self.bond(e[:, 0]) + self.dir(e[:, 1])


class GINE(nn.Module):
    def __init__(self, num_layers=5, emb_dim=300, num_tasks=1, drop_ratio=0.5, graph_pooling="mean"):
        super().__init__()
        self.atom_encoder = AtomEncoder(emb_dim)
        self.bond_encoders = nn.ModuleList([BondEncoder(emb_dim) for _ in range(num_layers)])
        self.convs = nn.ModuleList()
        self.norms = nn.ModuleList()
        for _ in range(num_layers):
            mlp = nn.Sequential(nn.Linear(emb_dim, 2 * emb_dim), nn.ReLU(), nn.Linear(2 * emb_dim, emb_dim))
            self.convs.append(GINEConv(mlp, train_eps=True))
            self.norms.append(nn.BatchNorm1d(emb_dim))
        self.dropout = nn.Dropout(drop_ratio)
        self.pool = global_mean_pool if graph_pooling == "mean" else global_add_pool
        self.head = nn.Linear(emb_dim, num_tasks)

    def forward(self, data):
        h = self.atom_encoder(data.x)
        for layer, (conv, norm) in enumerate(zip(self.convs, self.norms)):
            h = norm(conv(h, data.edge_index, self.bond_encoders[layer](data.edge_attr)))
            if layer < len(self.convs) - 1:
                h = torch.relu(h)
            h = self.dropout(h)
        return self.head(self.pool(h, data.batch))


MODEL_REGISTRY = {"gine": GINE}


def build_model(cfg):
    cls = MODEL_REGISTRY[cfg["name"]]
    kwargs = {k: v for k, v in cfg.items() if k != "name"}
    return cls(**kwargs)
