import torch
import torch.nn as nn


class FeaturesEmbedding(nn.Module):
    def __init__(self, field_dims, embed_dim):
        super().__init__()
        self.embedding = nn.Embedding(sum(field_dims), embed_dim)
        offsets = torch.tensor((0, *torch.tensor(field_dims).cumsum(0)[:-1].tolist()), dtype=torch.long)
        self.register_buffer("offsets", offsets)
        nn.init.xavier_uniform_(self.embedding.weight.data)

    def forward(self, x):
        return self.embedding(x + self.offsets.unsqueeze(0))


class DeepFM(nn.Module):
    def __init__(self, field_dims, embed_dim=16, mlp_dims=(256, 128), dropout=0.2):
        super().__init__()
        self.linear = nn.Embedding(sum(field_dims), 1)
        self.bias = nn.Parameter(torch.zeros(1))
        self.embedding = FeaturesEmbedding(field_dims, embed_dim)
        layers, d = [], len(field_dims) * embed_dim
        for h in mlp_dims:
            layers += [nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(dropout)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x):
        emb = self.embedding(x)
        lin = self.linear(x + self.embedding.offsets.unsqueeze(0)).sum(1) + self.bias
        square_of_sum = emb.sum(1) ** 2
        sum_of_square = (emb ** 2).sum(1)
        fm = 0.5 * (square_of_sum - sum_of_square).sum(1, keepdim=True)
        deep = self.mlp(emb.flatten(1))
        return torch.sigmoid((lin + fm + deep).squeeze(1))
