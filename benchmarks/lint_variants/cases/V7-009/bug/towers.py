from typing import Dict, List

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(dims: List[int], dropout: float) -> nn.Sequential:
    layers: List[nn.Module] = []
    for i in range(len(dims) - 1):
        layers.append(nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers += [nn.BatchNorm1d(dims[i + 1]), nn.ReLU(), nn.Dropout(dropout)]
    return nn.Sequential(*layers)


class UserTower(nn.Module):
    def __init__(self, n_users: int, n_items: int, n_ages: int, n_genders: int, dim: int = 64,
                 hidden=(256, 128), dropout: float = 0.2):
        super().__init__()
        self.user_emb = nn.Embedding(n_users, dim)
        self.age_emb = nn.Embedding(n_ages, 8)
        self.gender_emb = nn.Embedding(n_genders, 4)
        self.hist_emb = nn.EmbeddingBag(n_items, dim, mode="mean", padding_idx=0)
        self.mlp = mlp([dim * 2 + 12, *hidden, dim], dropout)

    def forward(self, feats: Dict[str, torch.Tensor]) -> torch.Tensor:
        x = torch.cat([self.user_emb(feats["user_id"]), self.age_emb(feats["age"]),
                       self.gender_emb(feats["gender"]), self.hist_emb(feats["history"])], dim=-1)
        return F.normalize(self.mlp(x), dim=-1)


class ItemTower(nn.Module):
    def __init__(self, n_items: int, n_genres: int, dim: int = 64, hidden=(256, 128), dropout: float = 0.2):
        super().__init__()
        self.item_emb = nn.Embedding(n_items, dim, padding_idx=0)
        self.genre_emb = nn.EmbeddingBag(n_genres, 16, mode="sum", padding_idx=0)
        self.year = nn.Linear(1, 4)
        self.mlp = mlp([dim + 20, *hidden, dim], dropout)

    def forward(self, feats: Dict[str, torch.Tensor]) -> torch.Tensor:
        x = torch.cat([self.item_emb(feats["item_id"]), self.genre_emb(feats["genres"]),
                       self.year(feats["year"].unsqueeze(-1))], dim=-1)
        return F.normalize(self.mlp(x), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, user_tower: UserTower, item_tower: ItemTower, temperature: float = 0.05):
        super().__init__()
        self.user_tower = user_tower
        self.item_tower = item_tower
        self.temperature = temperature

    def forward(self, user_feats, item_feats):
        return self.user_tower(user_feats), self.item_tower(item_feats)

    def in_batch_loss(self, u: torch.Tensor, v: torch.Tensor, log_q: torch.Tensor = None) -> torch.Tensor:
        logits = u @ v.T / self.temperature
        if log_q is not None:
            logits = logits - log_q.unsqueeze(0)
        labels = torch.arange(u.size(0), device=u.device)
        return F.cross_entropy(logits, labels)
