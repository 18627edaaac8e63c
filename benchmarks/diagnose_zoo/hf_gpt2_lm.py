"""Hugging Face GPT2LMHeadModel from a tiny GPT2Config (Conv1D projections, causal plus padding mask, pre-LN blocks, tied lm_head, loss from labels= shifted inside), a DataCollatorForLanguageModeling(mlm=False) batch, AdamW 5e-4 with weight decay 0.1 as the HF course trains a causal LM from scratch; hand-written stand-in (transformers not installed)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._data import successor_sequences
from ._hf import ModelOutput

VOCAB_SIZE, N_POSITIONS, N_EMBD, N_LAYER, N_HEAD = 48, 16, 32, 2, 2
PAD = 0  # GPT-2 has no pad token; collators pad with eos and mask the labels with -100
SEQ_LEN = 14
BATCH_SIZE = 12


class Conv1D(nn.Module):
    """transformers.pytorch_utils.Conv1D: a linear layer with the weight stored transposed, (in, out)."""

    def __init__(self, nf: int, nx: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(nx, nf).normal_(std=0.02))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(*x.shape[:-1], -1)


class GPT2Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = Conv1D(3 * N_EMBD, N_EMBD)
        self.c_proj = Conv1D(N_EMBD, N_EMBD)
        self.attn_dropout = nn.Dropout(0.1)
        self.resid_dropout = nn.Dropout(0.1)

    def forward(self, hidden: torch.Tensor, attention_mask: torch.Tensor | None) -> torch.Tensor:
        B, T, C = hidden.shape
        q, k, v = (t.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2) for t in self.c_attn(hidden).split(C, dim=2))
        causal = torch.ones(T, T, dtype=torch.bool, device=hidden.device).tril()
        mask = causal if attention_mask is None else causal & attention_mask[:, None, None, :].bool()
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.1 if self.training else 0.0)
        return self.resid_dropout(self.c_proj(out.transpose(1, 2).reshape(B, T, C)))


class GPT2Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD, eps=1e-5)
        self.attn = GPT2Attention()
        self.ln_2 = nn.LayerNorm(N_EMBD, eps=1e-5)
        self.c_fc = Conv1D(4 * N_EMBD, N_EMBD)
        self.c_proj = Conv1D(N_EMBD, 4 * N_EMBD)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden: torch.Tensor, attention_mask: torch.Tensor | None) -> torch.Tensor:
        hidden = hidden + self.attn(self.ln_1(hidden), attention_mask)
        return hidden + self.dropout(self.c_proj(F.gelu(self.c_fc(self.ln_2(hidden)), approximate="tanh")))


class GPT2LMHeadModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB_SIZE, N_EMBD)
        self.wpe = nn.Embedding(N_POSITIONS, N_EMBD)
        self.drop = nn.Dropout(0.1)
        self.h = nn.ModuleList(GPT2Block() for _ in range(N_LAYER))
        self.ln_f = nn.LayerNorm(N_EMBD, eps=1e-5)
        self.lm_head = nn.Linear(N_EMBD, VOCAB_SIZE, bias=False)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)
        self.lm_head.weight = self.wte.weight  # tie_word_embeddings
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):  # GPT-2's scaled init of the residual projections
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * N_LAYER))

    def forward(self, input_ids, attention_mask=None, labels=None):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        hidden = self.drop(self.wte(input_ids) + self.wpe(positions))
        for block in self.h:
            hidden = block(hidden, attention_mask)
        logits = self.lm_head(self.ln_f(hidden))
        loss = None
        if labels is not None:
            # Shift so that tokens < n predict n
            shift_logits = logits[..., :-1, :].contiguous()
            shift_labels = labels[..., 1:].contiguous()
            loss = F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
        return ModelOutput(loss=loss, logits=logits)


def make_batch(gen: torch.Generator) -> dict:
    """Right-padded sequences of varying length; labels = input_ids with padding set to -100."""
    input_ids = successor_sequences(gen, VOCAB_SIZE, SEQ_LEN, BATCH_SIZE, low=1)
    lengths = torch.randint(SEQ_LEN - 4, SEQ_LEN + 1, (BATCH_SIZE,), generator=gen)
    attention_mask = (torch.arange(SEQ_LEN)[None, :] < lengths[:, None]).long()
    input_ids = input_ids.masked_fill(attention_mask == 0, PAD)
    labels = input_ids.masked_fill(attention_mask == 0, -100)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.AdamW(params, lr=5e-4, weight_decay=0.1)


def train_step(model: nn.Module, batch: dict, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    optimizer.zero_grad()
    loss = model(**batch).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    spec = {
        "model": GPT2LMHeadModel(),
        "batch": make_batch(gen),
        "loss_fn": "model",
        "task": "lm",
        "vocab_size": VOCAB_SIZE,
        "seq_dim": 1,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
