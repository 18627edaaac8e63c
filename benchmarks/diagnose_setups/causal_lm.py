"""Tiny causal transformer language model on sequences that follow a successor rule.

Each sequence starts at a random token and then, token by token, follows a fixed random
successor table (next = SUCCESSOR[current]), except that with a small probability the
next token is drawn at random instead. The rule is shared by every sequence, so it is
learnable from the inputs. The model is written out explicitly: token and position
embeddings, pre-LayerNorm blocks of causal multi-head self-attention (an explicit
triangular mask) and an MLP, and a linear head. The blocks work time-major, (T, B, C),
the layout of nn.Transformer's default. `debug_spec(seed)` returns the diagnose
contract dict.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

VOCAB_SIZE = 24
SEQ_LEN = 16
BATCH_SIZE = 16
DIM = 32
HEADS = 2
NOISE = 0.03  # chance that a token breaks the successor rule
LEARNING_RATE = 3e-3
IGNORE_INDEX = -100


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int, max_len: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        # True above the diagonal: position t may not attend to positions after t.
        future = torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1)
        self.register_buffer("future", future, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T, B, C = x.shape  # time-major
        head_dim = C // self.heads
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        # (T, B, C) -> (B, heads, T, head_dim)
        q = q.reshape(T, B, self.heads, head_dim).permute(1, 2, 0, 3)
        k = k.reshape(T, B, self.heads, head_dim).permute(1, 2, 0, 3)
        v = v.reshape(T, B, self.heads, head_dim).permute(1, 2, 0, 3)
        scores = q @ k.transpose(-2, -1) / math.sqrt(head_dim)
        scores = scores.masked_fill(self.future[:T, :T], float("-inf"))
        y = scores.softmax(dim=-1) @ v  # (B, heads, T, head_dim)
        y = y.permute(2, 0, 1, 3).reshape(T, B, C)  # merge heads, back to (T, B, C)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, max_len: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, max_len)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size: int, dim: int, heads: int, max_len: int, depth: int = 1):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, dim)
        self.pos_emb = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, max_len) for _ in range(depth))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)
        # A small head: near-zero logits at init, so the initial loss is about ln(vocab_size).
        nn.init.normal_(self.head.weight, std=0.05)
        nn.init.zeros_(self.head.bias)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        B, T = tokens.shape
        positions = torch.arange(T, device=tokens.device)
        h = self.tok_emb(tokens) + self.pos_emb(positions)  # (B, T, C)
        h = h.transpose(0, 1)  # to time-major (T, B, C) for the blocks
        for block in self.blocks:
            h = block(h)
        h = h.transpose(0, 1)  # back to batch-major (B, T, C)
        return self.head(self.ln_f(h))  # logits (B, T, vocab)


def make_sequences(gen: torch.Generator, count: int) -> torch.Tensor:
    """`count` sequences of SEQ_LEN + 1 tokens that mostly follow one successor table."""
    successor = torch.randperm(VOCAB_SIZE, generator=gen)
    seq = torch.empty(count, SEQ_LEN + 1, dtype=torch.long)
    seq[:, 0] = torch.randint(VOCAB_SIZE, (count,), generator=gen)
    for t in range(SEQ_LEN):
        random_token = torch.randint(VOCAB_SIZE, (count,), generator=gen)
        breaks_rule = torch.rand(count, generator=gen) < NOISE
        seq[:, t + 1] = torch.where(breaks_rule, random_token, successor[seq[:, t]])
    return seq


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=LEARNING_RATE)


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=IGNORE_INDEX)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    tokens, targets = batch
    optimizer.zero_grad()
    loss = loss_fn(model(tokens), targets)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    seq = make_sequences(gen, BATCH_SIZE)
    inputs = seq[:, :-1]
    targets = seq[:, 1:]  # next-token targets: inputs shifted left by one
    model = TinyCausalLM(VOCAB_SIZE, DIM, HEADS, SEQ_LEN)
    return {
        "model": model,
        "batch": (inputs, targets),
        "loss_fn": loss_fn,
        "optimizer": make_optimizer,
        "task": "lm",
        "vocab_size": VOCAB_SIZE,
        "seq_dim": 1,
        "causal": True,
        "train_step": train_step,
    }
