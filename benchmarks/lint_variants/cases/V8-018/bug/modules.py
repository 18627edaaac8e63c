import math

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention used by the decoder over encoder states."""

    def __init__(self, query_dim, key_dim, embed_dim, num_heads=4, dropout=0.1):
        super().__init__()
        assert embed_dim % num_heads == 0
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.q_proj = nn.Linear(query_dim, embed_dim)
        self.k_proj = nn.Linear(key_dim, embed_dim)
        self.v_proj = nn.Linear(key_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)
        self.dropout = nn.Dropout(dropout)

    def _split_heads(self, x):
        b, t, _ = x.shape
        return x.view(b, self.num_heads, t, self.head_dim)

    def _merge_heads(self, x):
        b, h, t, d = x.shape
        return x.transpose(1, 2).reshape(b, t, h * d)

    def forward(self, query, keys, values, key_padding_mask=None):
        q = self._split_heads(self.q_proj(query))
        k = self._split_heads(self.k_proj(keys))
        v = self._split_heads(self.v_proj(values))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        attn = self.dropout(torch.softmax(scores, dim=-1))
        context = self._merge_heads(attn @ v)
        return self.out_proj(context), attn.mean(dim=1)


class LabelSmoothedNLL(nn.Module):
    def __init__(self, pad_idx, smoothing=0.1):
        super().__init__()
        self.pad_idx = pad_idx
        self.smoothing = smoothing

    def forward(self, logits, target):
        lprobs = torch.log_softmax(logits, dim=-1)
        nll = -lprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        smooth = -lprobs.mean(dim=-1)
        loss = (1.0 - self.smoothing) * nll + self.smoothing * smooth
        mask = target.ne(self.pad_idx)
        return (loss * mask).sum() / mask.sum().clamp_min(1)
