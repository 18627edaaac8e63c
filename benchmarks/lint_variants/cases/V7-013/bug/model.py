import math

import torch
import torch.nn as nn

PAD, BOS, EOS = 388, 389, 390


class MusicTransformer(nn.Module):
    """Decoder-only transformer over MIDI performance events (note-on/off, time-shift, velocity)."""

    def __init__(self, vocab_size, d_model=512, n_layers=6, n_heads=8, d_ff=2048, max_seq=2048, dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.max_seq = max_seq
        self.embed = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
        self.pos = nn.Parameter(torch.zeros(1, max_seq, d_model))
        nn.init.normal_(self.pos, std=0.02)
        self.drop = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layers, norm=nn.LayerNorm(d_model))
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        T = tokens.size(1)
        x = self.embed(tokens) * math.sqrt(self.d_model) + self.pos[:, :T]
        causal = nn.Transformer.generate_square_subsequent_mask(T, device=tokens.device)
        h = self.blocks(self.drop(x), mask=causal, is_causal=True, src_key_padding_mask=tokens == PAD)
        return self.head(h)

    @torch.no_grad()
    def generate(self, prime: torch.Tensor, length: int = 1024, temperature: float = 1.0, top_k: int = 0):
        self.eval()
        out = prime
        for _ in range(length):
            logits = self(out[:, -self.max_seq:])[:, -1] / temperature
            if top_k:
                v, _ = torch.topk(logits, top_k)
                logits[logits < v[:, [-1]]] = -float("inf")
            nxt = torch.multinomial(logits.softmax(-1), 1)
            out = torch.cat([out, nxt], dim=1)
            if (nxt == EOS).all():
                break
        return out


def noam_lambda(d_model: int, warmup: int):
    def fn(step: int) -> float:
        step = max(step, 1)
        return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
    return fn
