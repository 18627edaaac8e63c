import torch
import torch.nn as nn


class TinyGPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer=6, n_head=8, n_embd=512, dropout=0.1):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Parameter(torch.zeros(1, block_size, n_embd))
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, dropout,
                                           batch_first=True, norm_first=True, activation="gelu")
        self.blocks = nn.TransformerEncoder(layer, n_layer)
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((block_size, block_size), float("-inf")), 1))

    def forward(self, idx):
        T = idx.size(1)
        x = self.tok_emb(idx) + self.pos_emb[:, :T]
        x = self.blocks(x, mask=self.mask[:T, :T], is_causal=True)
        return self.lm_head(self.ln_f(x))
