"""Karpathy's nanoGPT model.py (CausalSelfAttention with its own registered tril mask, GELU MLP, pre-LN blocks, wte/lm_head weight tying, 0.02 and scaled c_proj init) with config/train_shakespeare_char.py's optimizer: AdamW 1e-3, betas (0.9, 0.99), weight decay 0.1 on 2-D tensors only, grad clip 1.0."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._data import successor_sequences

VOCAB_SIZE = 32  # a character vocabulary
BLOCK_SIZE = 16
BATCH_SIZE = 8
N_LAYER, N_HEAD, N_EMBD, DROPOUT = 2, 2, 32, 0.2


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD)
        self.attn_dropout = nn.Dropout(DROPOUT)
        self.resid_dropout = nn.Dropout(DROPOUT)
        self.n_head, self.n_embd = N_HEAD, N_EMBD
        # causal mask to ensure that attention is only applied to the left in the input sequence
        self.register_buffer("bias", torch.tril(torch.ones(BLOCK_SIZE, BLOCK_SIZE)).view(1, 1, BLOCK_SIZE, BLOCK_SIZE))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v  # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(N_EMBD, 4 * N_EMBD)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * N_EMBD, N_EMBD)
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(N_EMBD)
        self.mlp = MLP()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict({
            "wte": nn.Embedding(VOCAB_SIZE, N_EMBD), "wpe": nn.Embedding(BLOCK_SIZE, N_EMBD), "drop": nn.Dropout(DROPOUT),
            "h": nn.ModuleList([Block() for _ in range(N_LAYER)]), "ln_f": nn.LayerNorm(N_EMBD)})
        self.lm_head = nn.Linear(N_EMBD, VOCAB_SIZE, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():  # scaled init of the residual projections, per GPT-2
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * N_LAYER))

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        # nanoGPT returns (logits, loss) and, without targets, only the last position's logits;
        # here forward always returns every position's logits and the loss lives in loss_fn.
        _, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


def configure_optimizers(params, weight_decay: float = 0.1, learning_rate: float = 1e-3, betas=(0.9, 0.99)):
    params = [p for p in params if p.requires_grad]
    # any parameter that is 2D will be weight decayed, otherwise no: matmuls and embeddings decay, biases and layernorms don't
    decay_params = [p for p in params if p.dim() >= 2]
    nodecay_params = [p for p in params if p.dim() < 2]
    optim_groups = [{"params": decay_params, "weight_decay": weight_decay},
                    {"params": nodecay_params, "weight_decay": 0.0}]
    return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    X, Y = batch
    loss = loss_fn(model(X), Y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)  # flush the gradients as soon as we can
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    data = successor_sequences(gen, VOCAB_SIZE, BLOCK_SIZE + 1, BATCH_SIZE)
    spec = {
        "model": GPT(),
        # x = data[i:i+block_size], y = data[i+1:i+1+block_size], stacked (so contiguous) as get_batch does
        "batch": (data[:, :-1].contiguous(), data[:, 1:].contiguous()),
        "loss_fn": loss_fn,
        "task": "lm",
        "vocab_size": VOCAB_SIZE,
        "seq_dim": 1,
        "causal": True,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = configure_optimizers
    return spec
