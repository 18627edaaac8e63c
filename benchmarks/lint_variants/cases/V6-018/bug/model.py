import torch
import torch.nn as nn


def emb_sz_rule(n_cat):
    return min(600, round(1.6 * n_cat ** 0.56))


class TabularNet(nn.Module):
    def __init__(self, cat_cardinalities, n_cont, out_dim=1, layers=(512, 256), ps=(0.1, 0.1), emb_drop=0.05):
        super().__init__()
        self.embeds = nn.ModuleList([nn.Embedding(n + 1, emb_sz_rule(n + 1)) for n in cat_cardinalities])
        self.emb_drop = nn.Dropout(emb_drop)
        self.bn_cont = nn.BatchNorm1d(n_cont)
        n_emb = sum(e.embedding_dim for e in self.embeds)
        blocks, d = [], n_emb + n_cont
        for h, p in zip(layers, ps):
            blocks += [nn.Linear(d, h), nn.ReLU(inplace=True), nn.BatchNorm1d(h), nn.Dropout(p)]
            d = h
        self.layers = nn.Sequential(*blocks)
        self.head = nn.Linear(d, out_dim)

    def forward(self, x_cat, x_cont):
        x = torch.cat([e(x_cat[:, i]) for i, e in enumerate(self.embeds)], 1)
        x = self.emb_drop(x)
        x = torch.cat([x, self.bn_cont(x_cont)], 1)
        return self.head(self.layers(x)).squeeze(-1)
