"""A text classifier on torch.nn.TransformerEncoder (batch_first, pre-LN, key padding mask from the pad id, masked mean pooling) with label smoothing 0.1 and Adam betas (0.9, 0.98), eps 1e-9 as in "Attention Is All You Need"."""

from __future__ import annotations

import math

import torch
from torch import nn

VOCAB_SIZE = 48
NUM_CLASSES = 4
SEQ_LEN = 12
PER_CLASS = 5
PAD = 0
D_MODEL = 32


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 64, dropout: float = 0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(x + self.pe[:, : x.size(1)])


class TransformerClassifier(nn.Module):
    def __init__(self, vocab_size: int, num_classes: int, d_model: int = D_MODEL, nhead: int = 2, layers: int = 2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
        self.pos_encoder = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.1, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.classifier = nn.Linear(d_model, num_classes)
        self.d_model = d_model
        initrange = 0.1  # the PyTorch transformer tutorial's init_weights
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.classifier.bias.data.zero_()
        self.classifier.weight.data.uniform_(-initrange, initrange)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        padding = tokens == PAD  # True where there is no token
        x = self.pos_encoder(self.embedding(tokens) * math.sqrt(self.d_model))
        x = self.encoder(x, src_key_padding_mask=padding)
        keep = (~padding).unsqueeze(-1).float()
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)  # mean over real tokens
        return self.classifier(pooled)


criterion = nn.CrossEntropyLoss(label_smoothing=0.1)


def make_batch(gen: torch.Generator):
    """The label is which of four "topic" word groups dominates the sentence; padded to SEQ_LEN."""
    topics = 1 + torch.randperm(VOCAB_SIZE - 1, generator=gen)[: 5 * NUM_CLASSES].view(NUM_CLASSES, 5)
    labels = torch.arange(NUM_CLASSES).repeat_interleave(PER_CLASS)
    tokens = torch.randint(1, VOCAB_SIZE, (labels.numel(), SEQ_LEN), generator=gen)
    for i, label in enumerate(labels.tolist()):
        where = torch.randperm(SEQ_LEN - 3, generator=gen)[:4]
        tokens[i, where] = topics[label, torch.randint(0, 5, (4,), generator=gen)]
    lengths = torch.randint(SEQ_LEN - 3, SEQ_LEN + 1, (labels.numel(),), generator=gen)
    return tokens.masked_fill(torch.arange(SEQ_LEN)[None, :] >= lengths[:, None], PAD), labels


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=5e-4, betas=(0.9, 0.98), eps=1e-9)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    tokens, labels = batch
    optimizer.zero_grad()
    loss = criterion(model(tokens), labels)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    tokens, labels = make_batch(gen)
    spec = {
        "model": TransformerClassifier(VOCAB_SIZE, NUM_CLASSES),
        "batch": (tokens, labels),
        "loss_fn": criterion,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
