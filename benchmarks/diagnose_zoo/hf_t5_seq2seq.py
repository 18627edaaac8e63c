"""Hugging Face T5ForConditionalGeneration from a tiny T5Config (RMS T5LayerNorm, bucketed relative attention bias, unscaled attention, ReLU feed-forward, shared tied embeddings rescaled by d_model**-0.5, decoder inputs = labels shifted right inside the model), AdamW 3e-4 as the T5 docs advise; hand-written stand-in (transformers not installed)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._hf import ModelOutput

VOCAB_SIZE, D_MODEL, D_KV, D_FF, HEADS, LAYERS = 32, 32, 16, 64, 2, 1
NUM_BUCKETS, MAX_DISTANCE = 8, 16
PAD = DECODER_START = 0
EOS = 1
SOURCE_LEN, TARGET_LEN = 10, 7
BATCH_SIZE = 12


class T5LayerNorm(nn.Module):
    """RMS norm: no mean subtraction, no bias."""

    def __init__(self, size: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def relative_position_bucket(relative_position: torch.Tensor, bidirectional: bool) -> torch.Tensor:
    buckets, num_buckets = 0, NUM_BUCKETS
    if bidirectional:
        num_buckets //= 2
        buckets = (relative_position > 0).long() * num_buckets
        relative_position = relative_position.abs()
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    large = max_exact + (torch.log(relative_position.float().clamp(min=1) / max_exact)
                         / math.log(MAX_DISTANCE / max_exact) * (num_buckets - max_exact)).long()
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, relative_position, large)


class T5Attention(nn.Module):
    def __init__(self, has_relative_bias: bool, bidirectional: bool):
        super().__init__()
        inner = HEADS * D_KV
        self.q, self.k, self.v = (nn.Linear(D_MODEL, inner, bias=False) for _ in range(3))
        self.o = nn.Linear(inner, D_MODEL, bias=False)
        self.bidirectional = bidirectional
        self.relative_attention_bias = nn.Embedding(NUM_BUCKETS, HEADS) if has_relative_bias else None
        nn.init.normal_(self.q.weight, std=(D_MODEL * D_KV) ** -0.5)
        nn.init.normal_(self.k.weight, std=D_MODEL ** -0.5)
        nn.init.normal_(self.v.weight, std=D_MODEL ** -0.5)
        nn.init.normal_(self.o.weight, std=inner ** -0.5)
        if self.relative_attention_bias is not None:
            nn.init.normal_(self.relative_attention_bias.weight, std=D_MODEL ** -0.5)

    def position_bias(self, q_len: int, k_len: int, device) -> torch.Tensor:
        relative = torch.arange(k_len, device=device)[None, :] - torch.arange(q_len, device=device)[:, None]
        return self.relative_attention_bias(relative_position_bucket(relative, self.bidirectional)).permute(2, 0, 1)[None]

    def forward(self, x, kv=None, mask=None, bias=None):
        kv = x if kv is None else kv
        B = x.shape[0]
        q = self.q(x).view(B, -1, HEADS, D_KV).transpose(1, 2)
        k = self.k(kv).view(B, -1, HEADS, D_KV).transpose(1, 2)
        v = self.v(kv).view(B, -1, HEADS, D_KV).transpose(1, 2)
        scores = q @ k.transpose(3, 2)  # T5 does not scale by sqrt(d_kv); the init accounts for it
        if bias is None and self.relative_attention_bias is not None:
            bias = self.position_bias(q.shape[2], k.shape[2], x.device)
        if bias is not None:
            scores = scores + bias
        if mask is not None:
            scores = scores + mask
        attn = F.dropout(scores.float().softmax(-1).type_as(scores), p=0.1, training=self.training)
        return self.o((attn @ v).transpose(1, 2).reshape(B, -1, HEADS * D_KV)), bias


class T5FF(nn.Module):
    def __init__(self):
        super().__init__()
        self.wi = nn.Linear(D_MODEL, D_FF, bias=False)
        self.wo = nn.Linear(D_FF, D_MODEL, bias=False)
        self.dropout = nn.Dropout(0.1)
        nn.init.normal_(self.wi.weight, std=D_MODEL ** -0.5)
        nn.init.normal_(self.wo.weight, std=D_FF ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.wo(self.dropout(F.relu(self.wi(x))))


class T5Block(nn.Module):
    def __init__(self, decoder: bool, first: bool):
        super().__init__()
        self.self_norm, self.self_attn = T5LayerNorm(D_MODEL), T5Attention(first, bidirectional=not decoder)
        self.cross_norm = T5LayerNorm(D_MODEL) if decoder else None
        self.cross_attn = T5Attention(False, bidirectional=True) if decoder else None
        self.ff_norm, self.ff = T5LayerNorm(D_MODEL), T5FF()
        self.dropout = nn.Dropout(0.1)

    def forward(self, x, mask, bias, memory=None, memory_mask=None):
        out, bias = self.self_attn(self.self_norm(x), mask=mask, bias=bias)
        x = x + self.dropout(out)
        if self.cross_attn is not None:
            x = x + self.dropout(self.cross_attn(self.cross_norm(x), kv=memory, mask=memory_mask)[0])
        return x + self.dropout(self.ff(self.ff_norm(x))), bias


class T5Stack(nn.Module):
    def __init__(self, decoder: bool):
        super().__init__()
        self.decoder = decoder
        self.block = nn.ModuleList(T5Block(decoder, i == 0) for i in range(LAYERS))
        self.final_layer_norm = T5LayerNorm(D_MODEL)
        self.dropout = nn.Dropout(0.1)

    def forward(self, embeds, attention_mask, memory=None, memory_mask=None):
        T = embeds.shape[1]
        mask = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(embeds.dtype).min
        if self.decoder:
            future = torch.ones(T, T, dtype=torch.bool, device=embeds.device).triu(1)
            mask = mask.masked_fill(future, torch.finfo(embeds.dtype).min)
        x, bias = self.dropout(embeds), None
        for block in self.block:
            x, bias = block(x, mask, bias, memory, memory_mask)
        return self.dropout(self.final_layer_norm(x))


class T5ForConditionalGeneration(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Embedding(VOCAB_SIZE, D_MODEL)
        nn.init.normal_(self.shared.weight, std=1.0)
        self.encoder = T5Stack(decoder=False)
        self.decoder = T5Stack(decoder=True)
        self.lm_head = nn.Linear(D_MODEL, VOCAB_SIZE, bias=False)
        self.lm_head.weight = self.shared.weight  # tie_word_embeddings

    @staticmethod
    def _shift_right(labels: torch.Tensor) -> torch.Tensor:
        shifted = labels.new_zeros(labels.shape)
        shifted[..., 1:] = labels[..., :-1].clone()
        shifted[..., 0] = DECODER_START
        return shifted.masked_fill(shifted == -100, PAD)  # replace possible -100 values in labels by pad

    def forward(self, input_ids, attention_mask=None, labels=None, decoder_input_ids=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if decoder_input_ids is None:
            decoder_input_ids = self._shift_right(labels)
        memory = self.encoder(self.shared(input_ids), attention_mask)
        memory_mask = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(memory.dtype).min
        out = self.decoder(self.shared(decoder_input_ids), torch.ones_like(decoder_input_ids), memory, memory_mask)
        logits = self.lm_head(out * D_MODEL ** -0.5)  # rescale before the tied projection
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        return ModelOutput(loss=loss, logits=logits)


def make_batch(gen: torch.Generator) -> dict:
    """A "translation": each target token is a fixed word-for-word mapping of the source's first tokens, then EOS."""
    table = 2 + torch.randperm(VOCAB_SIZE - 2, generator=gen)
    source = torch.randint(2, VOCAB_SIZE, (BATCH_SIZE, SOURCE_LEN), generator=gen)
    source[:, -1] = EOS
    labels = torch.cat([table[source[:, : TARGET_LEN - 1] - 2], torch.full((BATCH_SIZE, 1), EOS)], dim=1)
    return {"input_ids": source, "attention_mask": torch.ones_like(source), "labels": labels}


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.AdamW(params, lr=3e-4)


def train_step(model: nn.Module, batch: dict, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    loss = model(**batch).loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    spec = {
        "model": T5ForConditionalGeneration(),
        "batch": make_batch(gen),
        "loss_fn": "model",
        "task": "lm",
        "vocab_size": VOCAB_SIZE,
        "causal": False,  # the encoder reads the whole source; the decoder's own mask is causal
        "seq_dim": 1,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
