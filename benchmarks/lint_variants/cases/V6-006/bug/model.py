import torch
import torch.nn as nn


class BPRMF(nn.Module):
    def __init__(self, num_users, num_items, dim=64):
        super().__init__()
        self.user_emb = nn.Embedding(num_users, dim)
        self.item_emb = nn.Embedding(num_items, dim)
        nn.init.normal_(self.user_emb.weight, std=0.01)
        nn.init.normal_(self.item_emb.weight, std=0.01)

    def forward(self, users, items):
        return (self.user_emb(users) * self.item_emb(items)).sum(-1)

    def bpr_loss(self, users, pos, neg, reg=1e-4):
        u = self.user_emb(users)
        i = self.item_emb(pos)
        j = self.item_emb(neg)
        x_uij = (u * i).sum(-1) - (u * j).sum(-1)
        loss = -nn.functional.logsigmoid(x_uij).mean()
        l2 = (u.norm(dim=1).pow(2) + i.norm(dim=1).pow(2) + j.norm(dim=1).pow(2)).mean()
        return loss + reg * l2

    @torch.no_grad()
    def full_scores(self, users):
        return self.user_emb(users) @ self.item_emb.weight.t()
