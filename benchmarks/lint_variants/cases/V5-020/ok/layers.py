import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, attn_dropout=0.1, proj_dropout=0.1):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.attn_dropout = attn_dropout
        self.proj_drop = nn.Dropout(proj_dropout)

    def forward(self, x):
        B, L, D = x.shape
        q, k, v = self.qkv(x).reshape(B, L, 3, self.n_heads, D // self.n_heads).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_dropout if self.training else 0.0)
        out = out.transpose(1, 2).reshape(B, L, D)
        return self.proj_drop(self.proj(out))


class EncoderLayer(nn.Module):
    def __init__(self, d_model, n_heads, d_ff, dropout=0.1):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads, dropout, dropout)
        self.norm1 = nn.BatchNorm1d(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Dropout(dropout), nn.Linear(d_ff, d_model))
        self.norm2 = nn.BatchNorm1d(d_model)

    def forward(self, x):
        x = x + self.attn(x)
        x = self.norm1(x.transpose(1, 2)).transpose(1, 2)
        x = x + self.ff(x)
        return self.norm2(x.transpose(1, 2)).transpose(1, 2)


class PatchTST(nn.Module):
    def __init__(self, seq_len, pred_len, patch_len=16, stride=8, d_model=128, n_heads=8, e_layers=3, d_ff=256, dropout=0.2):
        super().__init__()
        self.patch_len, self.stride = patch_len, stride
        n_patches = (seq_len - patch_len) // stride + 2
        self.pad = nn.ReplicationPad1d((0, stride))
        self.embed = nn.Linear(patch_len, d_model)
        self.pos = nn.Parameter(0.02 * torch.randn(1, n_patches, d_model))
        self.encoder = nn.Sequential(*[EncoderLayer(d_model, n_heads, d_ff, dropout) for _ in range(e_layers)])
        self.head = nn.Sequential(nn.Flatten(-2), nn.Dropout(dropout), nn.Linear(n_patches * d_model, pred_len))

    def forward(self, x):
        B, L, C = x.shape
        mean = x.mean(1, keepdim=True)
        std = x.std(1, keepdim=True) + 1e-5
        x = ((x - mean) / std).permute(0, 2, 1)
        patches = self.pad(x).unfold(-1, self.patch_len, self.stride).reshape(B * C, -1, self.patch_len)
        z = self.encoder(self.embed(patches) + self.pos)
        out = self.head(z).reshape(B, C, -1).permute(0, 2, 1)
        return out * std + mean
