import torch
import torch.nn as nn

from layers import EncoderLayer


class TransformerClassifier(nn.Module):
    def __init__(self, vocab_size, num_classes, d_model=256, n_heads=8, n_layers=4, d_ff=1024,
                 max_len=512, dropout=0.1, pad_idx=0):
        super().__init__()
        self.pad_idx = pad_idx
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=pad_idx)
        self.pos = nn.Embedding(max_len, d_model)
        self.layers = nn.ModuleList([EncoderLayer(d_model, n_heads, d_ff, dropout) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(d_model)
        self.cls = nn.Linear(d_model, num_classes)

    def forward(self, input_ids):
        pad_mask = input_ids == self.pad_idx
        pos = torch.arange(input_ids.size(1), device=input_ids.device)
        x = self.tok(input_ids) + self.pos(pos)[None]
        for layer in self.layers:
            x = layer(x, pad_mask)
        x = self.norm(x).masked_fill(pad_mask[..., None], 0.0)
        pooled = x.sum(1) / (~pad_mask).sum(1, keepdim=True).clamp(min=1)
        return self.cls(pooled)
