"""Hugging Face BertForSequenceClassification from a tiny BertConfig (embeddings with token types and LayerNorm, post-LN encoder with extended attention mask, tanh pooler, dropout, loss from labels=), AdamW 5e-4 with weight decay 0.01 (a small-BERT pre-training rate as in ELECTRA-small: these weights are not pretrained, so the Trainer's fine-tuning default 5e-5 would not apply); hand-written stand-in (transformers not installed)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._hf import ModelOutput, extended_attention_mask

VOCAB_SIZE, HIDDEN, LAYERS, HEADS, INTERMEDIATE, MAX_POSITIONS = 64, 32, 2, 2, 64, 32
NUM_LABELS = 3
PAD, CLS, SEP = 0, 1, 2
SEQ_LEN = 12
PER_CLASS = 6
INITIALIZER_RANGE = 0.02
DROPOUT = 0.1


class BertEmbeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB_SIZE, HIDDEN, padding_idx=PAD)
        self.position_embeddings = nn.Embedding(MAX_POSITIONS, HIDDEN)
        self.token_type_embeddings = nn.Embedding(2, HIDDEN)
        self.LayerNorm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions) + self.token_type_embeddings(token_type_ids)
        return self.dropout(self.LayerNorm(x))


class BertLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = (nn.Linear(HIDDEN, HIDDEN) for _ in range(3))
        self.attention_dropout = nn.Dropout(DROPOUT)
        self.attention_output = nn.Linear(HIDDEN, HIDDEN)
        self.attention_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.intermediate = nn.Linear(HIDDEN, INTERMEDIATE)
        self.output = nn.Linear(INTERMEDIATE, HIDDEN)
        self.output_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.dropout = nn.Dropout(DROPOUT)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        return x.view(B, T, HEADS, HIDDEN // HEADS).permute(0, 2, 1, 3)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        q, k, v = self._heads(self.query(hidden)), self._heads(self.key(hidden)), self._heads(self.value(hidden))
        scores = q @ k.transpose(-1, -2) / math.sqrt(HIDDEN // HEADS) + mask
        context = self.attention_dropout(scores.softmax(dim=-1)) @ v
        context = context.permute(0, 2, 1, 3).reshape(hidden.shape)
        attention = self.attention_norm(hidden + self.dropout(self.attention_output(context)))  # post-LN
        inter = F.gelu(self.intermediate(attention))
        return self.output_norm(attention + self.dropout(self.output(inter)))


class BertForSequenceClassification(nn.Module):
    def __init__(self, num_labels: int):
        super().__init__()
        self.num_labels = num_labels
        self.embeddings = BertEmbeddings()
        self.layers = nn.ModuleList(BertLayer() for _ in range(LAYERS))
        self.pooler = nn.Linear(HIDDEN, HIDDEN)
        self.dropout = nn.Dropout(DROPOUT)
        self.classifier = nn.Linear(HIDDEN, num_labels)
        self.apply(self._init_weights)

    def _init_weights(self, module: nn.Module) -> None:  # BertPreTrainedModel._init_weights
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=INITIALIZER_RANGE)
            if isinstance(module, nn.Linear) and module.bias is not None:
                module.bias.data.zero_()
            if isinstance(module, nn.Embedding) and module.padding_idx is not None:
                module.weight.data[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        hidden = self.embeddings(input_ids, token_type_ids)
        mask = extended_attention_mask(attention_mask, hidden.dtype)
        for layer in self.layers:
            hidden = layer(hidden, mask)
        pooled = torch.tanh(self.pooler(hidden[:, 0]))  # the [CLS] token
        logits = self.classifier(self.dropout(pooled))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, self.num_labels), labels.view(-1))
        return ModelOutput(loss=loss, logits=logits)


def make_batch(gen: torch.Generator) -> dict:
    """A collated batch: [CLS] filler ... keywords of the label's class ... [SEP] [PAD]..., variable lengths."""
    words = 3 + torch.randperm(VOCAB_SIZE - 3, generator=gen)
    keywords, filler = words[: 4 * NUM_LABELS].view(NUM_LABELS, 4), words[4 * NUM_LABELS:]
    labels = torch.arange(NUM_LABELS).repeat_interleave(PER_CLASS)
    input_ids = torch.full((labels.numel(), SEQ_LEN), PAD, dtype=torch.long)
    attention_mask = torch.zeros_like(input_ids)
    for i, label in enumerate(labels.tolist()):
        length = int(torch.randint(SEQ_LEN // 2, SEQ_LEN + 1, (1,), generator=gen))
        body = filler[torch.randint(0, filler.numel(), (length - 2,), generator=gen)]
        where = torch.randperm(length - 2, generator=gen)[:2]
        body[where] = keywords[label, torch.randint(0, 4, (2,), generator=gen)]
        input_ids[i, :length] = torch.cat([torch.tensor([CLS]), body, torch.tensor([SEP])])
        attention_mask[i, :length] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask,
            "token_type_ids": torch.zeros_like(input_ids), "labels": labels}


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.AdamW(params, lr=5e-4, weight_decay=0.01)


def train_step(model: nn.Module, batch: dict, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    outputs = model(**batch)
    loss = outputs.loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    spec = {
        "model": BertForSequenceClassification(NUM_LABELS),
        "batch": make_batch(gen),
        "loss_fn": "model",
        "task": "classification",
        "num_classes": NUM_LABELS,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
