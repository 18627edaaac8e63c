import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=4096, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pe = torch.zeros(max_len, d_model)
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


class MusicTransformer(nn.Module):
    """Decoder-only transformer over performance-event tokens (note-on/off, time-shift, velocity)."""

    def __init__(self, vocab_size=390, d_model=512, n_heads=8, n_layers=6, d_ff=1024, dropout=0.1, max_len=2048):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pos = PositionalEncoding(d_model, max_len, dropout)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout, batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, n_layers)
        self.norm = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size)
        self.d_model = d_model

    def forward(self, tokens):
        t = tokens.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(t, device=tokens.device)
        x = self.pos(self.embed(tokens) * math.sqrt(self.d_model))
        x = self.layers(x, mask=mask, is_causal=True)
        return self.lm_head(self.norm(x))

    @torch.no_grad()
    def generate(self, prime, length=1024, temperature=1.0, top_k=None):
        seq = prime
        for _ in range(length):
            logits = self(seq[:, -2048:])[:, -1] / temperature
            if top_k is not None:
                kth = torch.topk(logits, top_k).values[:, -1:]
                logits = logits.masked_fill(logits < kth, float("-inf"))
            nxt = torch.multinomial(torch.softmax(logits, dim=-1), 1)
            seq = torch.cat([seq, nxt], dim=1)
        return seq
