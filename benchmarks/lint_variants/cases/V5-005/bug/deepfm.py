import torch
import torch.nn as nn

from basemodel import BaseModel


class FM(nn.Module):
    def forward(self, emb):
        square_of_sum = emb.sum(dim=1).pow(2)
        sum_of_square = emb.pow(2).sum(dim=1)
        return 0.5 * (square_of_sum - sum_of_square).sum(dim=1, keepdim=True)


class DeepFM(BaseModel):
    def __init__(self, field_dims, embed_dim=8, dnn_hidden_units=(256, 128), dnn_dropout=0.2):
        super().__init__()
        num_feats = sum(field_dims)
        self.register_buffer("offsets", torch.tensor([0] + list(field_dims[:-1])).cumsum(0))
        self.embedding = nn.Embedding(num_feats, embed_dim)
        self.linear = nn.Sequential(nn.Embedding(num_feats, 1))
        self.fm = FM()
        layers, in_dim = [], len(field_dims) * embed_dim
        for h in dnn_hidden_units:
            layers += [nn.Linear(in_dim, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(dnn_dropout)]
            in_dim = h
        self.dnn = nn.Sequential(*layers)
        self.dnn_linear = nn.Linear(in_dim, 1)

    def forward(self, X):
        X = X + self.offsets
        emb = self.embedding(X)
        linear_logit = self.linear(X).sum(dim=1)
        dnn_input = emb.flatten(1)
        logit = linear_logit + self.fm(emb) + self.dnn_linear(self.dnn(dnn_input))
        return torch.sigmoid(logit)
