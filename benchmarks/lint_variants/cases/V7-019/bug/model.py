import logging
from typing import Callable, Dict

import torch
import torch.nn as nn
import torch.nn.functional as F

log = logging.getLogger(__name__)
MODEL_REGISTRY: Dict[str, Callable[..., nn.Module]] = {}


def register_model(name):
    def wrap(cls):
        MODEL_REGISTRY[name] = cls
        return cls
    return wrap


def knn(x: torch.Tensor, k: int) -> torch.Tensor:
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x ** 2, dim=1, keepdim=True)
    pairwise = -xx - inner - xx.transpose(2, 1)
    return pairwise.topk(k=k, dim=-1)[1]


def edge_features(x: torch.Tensor, k: int) -> torch.Tensor:
    B, C, N = x.shape
    idx = knn(x, k) + torch.arange(B, device=x.device).view(-1, 1, 1) * N
    x_t = x.transpose(2, 1).contiguous()
    neigh = x_t.view(B * N, -1)[idx.view(-1)].view(B, N, k, C)
    center = x_t.view(B, N, 1, C).expand(-1, -1, k, -1)
    return torch.cat((neigh - center, center), dim=3).permute(0, 3, 1, 2).contiguous()


class EdgeConv(nn.Module):
    def __init__(self, c_in, c_out, k=20):
        super().__init__()
        self.k = k
        self.mlp = nn.Sequential(nn.Conv2d(2 * c_in, c_out, 1, bias=False), nn.BatchNorm2d(c_out),
                                 nn.LeakyReLU(0.2))

    def forward(self, x):
        return self.mlp(edge_features(x, self.k)).max(dim=-1)[0]


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, dim, heads=4, dropout=0.1):
        super().__init__()
        assert dim % heads == 0
        self.heads = heads
        self.dim_head = dim // heads
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(dim, dim, bias=False)
        self.to_v = nn.Linear(dim, dim, bias=False)
        self.proj = nn.Linear(dim, dim)
        self.dropout = dropout

    def _split_heads(self, t: torch.Tensor) -> torch.Tensor:
        B, N, _ = t.shape
        return t.view(B, self.heads, N, self.dim_head)

    def _merge_heads(self, t: torch.Tensor) -> torch.Tensor:
        B, H, N, D = t.shape
        return t.transpose(1, 2).reshape(B, N, H * D)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self._split_heads(self.to_q(x))
        k = self._split_heads(self.to_k(x))
        v = self._split_heads(self.to_v(x))
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0)
        return self.proj(self._merge_heads(out))


class TransformerBlock(nn.Module):
    def __init__(self, dim, heads=4, mlp_ratio=2.0, dropout=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = MultiHeadSelfAttention(dim, heads, dropout)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, int(dim * mlp_ratio)), nn.GELU(), nn.Dropout(dropout),
                                 nn.Linear(int(dim * mlp_ratio), dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


@register_model("pct_seg")
class PointTransformerSeg(nn.Module):
    def __init__(self, in_channels=9, num_classes=13, k=20, dim=128, depth=4, heads=4, dropout=0.1):
        super().__init__()
        self.edge1 = EdgeConv(in_channels, 64, k)
        self.edge2 = EdgeConv(64, dim, k)
        self.blocks = nn.ModuleList(TransformerBlock(dim, heads, dropout=dropout) for _ in range(depth))
        self.fuse = nn.Sequential(nn.Conv1d(64 + dim * (depth + 1), 512, 1, bias=False), nn.BatchNorm1d(512),
                                  nn.LeakyReLU(0.2))
        self.head = nn.Sequential(nn.Conv1d(512 * 2, 256, 1, bias=False), nn.BatchNorm1d(256), nn.LeakyReLU(0.2),
                                  nn.Dropout(0.5), nn.Conv1d(256, num_classes, 1))

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        f1 = self.edge1(points)
        f2 = self.edge2(f1)
        x = f2.transpose(1, 2)
        feats = [f1, f2]
        for blk in self.blocks:
            x = blk(x)
            feats.append(x.transpose(1, 2))
        fused = self.fuse(torch.cat(feats, dim=1))
        glob = fused.max(dim=-1, keepdim=True)[0].expand_as(fused)
        return self.head(torch.cat([fused, glob], dim=1))


def build_model(cfg) -> nn.Module:
    model = MODEL_REGISTRY[cfg.model.name](**cfg.model.params)
    log.info("%s: %.2fM params", cfg.model.name, sum(p.numel() for p in model.parameters()) / 1e6)
    return model
