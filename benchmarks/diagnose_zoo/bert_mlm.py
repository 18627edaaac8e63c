"""BERT-style masked language modelling (Devlin et al. 2019, HF BertForMaskedLM + DataCollatorForLanguageModeling) trained RoBERTa-style (Liu et al. 2019: dynamic masking, AdamW lr 6e-4, betas (0.9, 0.98), eps 1e-6, weight decay 0.01 except biases/LayerNorm): word+position+segment embeddings with LayerNorm, post-LN encoder (GELU, dropout 0.1, padding mask), MLM head (dense-GELU-LayerNorm, decoder tied to the word embeddings), 15% of non-special tokens chosen at random with the 80/10/10 [MASK]/random/keep rule, labels -100 elsewhere, cross-entropy with ignore_index=-100."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

PAD, UNK, CLS, SEP, MASK = 0, 1, 2, 3, 4
NUM_SPECIAL = 5
NUM_WORDS = 20
VOCAB_SIZE = NUM_SPECIAL + NUM_WORDS
MAX_LEN = 24
HIDDEN = 48
LAYERS = 2
HEADS = 4
INTERMEDIATE = 192
DROPOUT = 0.1
COUNT = 32
MLM_PROBABILITY = 0.15


class BertEmbeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB_SIZE, HIDDEN, padding_idx=PAD)
        self.position_embeddings = nn.Embedding(MAX_LEN, HIDDEN)
        self.token_type_embeddings = nn.Embedding(2, HIDDEN)
        self.LayerNorm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.dropout = nn.Dropout(DROPOUT)
        self.register_buffer("position_ids", torch.arange(MAX_LEN).unsqueeze(0), persistent=False)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
        seq_len = input_ids.shape[1]
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        x = self.word_embeddings(input_ids) + self.position_embeddings(self.position_ids[:, :seq_len]) + self.token_type_embeddings(token_type_ids)
        return self.dropout(self.LayerNorm(x))


class BertSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = HIDDEN // HEADS
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.dropout = nn.Dropout(DROPOUT)

    def split(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        return x.view(b, n, HEADS, self.head_dim).transpose(1, 2)

    def forward(self, hidden: torch.Tensor, extended_mask: torch.Tensor) -> torch.Tensor:
        q, k, v = self.split(self.query(hidden)), self.split(self.key(hidden)), self.split(self.value(hidden))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + extended_mask
        probs = self.dropout(scores.softmax(dim=-1))
        ctx = (probs @ v).transpose(1, 2).reshape(hidden.shape)
        return ctx


class BertLayer(nn.Module):
    """Post-LN: LayerNorm(x + Dropout(Dense(Attention(x)))), then LayerNorm(h + Dropout(Dense(GELU(Dense(h)))))."""

    def __init__(self):
        super().__init__()
        self.attention = BertSelfAttention()
        self.attention_output = nn.Linear(HIDDEN, HIDDEN)
        self.attention_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.intermediate = nn.Linear(HIDDEN, INTERMEDIATE)
        self.output = nn.Linear(INTERMEDIATE, HIDDEN)
        self.output_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self, hidden: torch.Tensor, extended_mask: torch.Tensor) -> torch.Tensor:
        attn = self.dropout(self.attention_output(self.attention(hidden, extended_mask)))
        hidden = self.attention_norm(hidden + attn)
        ff = self.dropout(self.output(F.gelu(self.intermediate(hidden))))
        return self.output_norm(hidden + ff)


class BertForMaskedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = BertEmbeddings()
        self.layers = nn.ModuleList([BertLayer() for _ in range(LAYERS)])
        self.transform = nn.Linear(HIDDEN, HIDDEN)
        self.transform_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.decoder = nn.Linear(HIDDEN, VOCAB_SIZE, bias=False)
        self.decoder_bias = nn.Parameter(torch.zeros(VOCAB_SIZE))
        self.apply(self._init_weights)
        self.decoder.weight = self.embeddings.word_embeddings.weight  # tie_weights()

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=0.02)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=0.02)
            if module.padding_idx is not None:
                module.weight.data[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        extended_mask = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        hidden = self.embeddings(input_ids)
        for layer in self.layers:
            hidden = layer(hidden, extended_mask)
        h = self.transform_norm(F.gelu(self.transform(hidden)))
        return self.decoder(h) + self.decoder_bias  # (B, L, V) prediction scores


def make_sentences(gen: torch.Generator, n: int):
    """[CLS] w_1 .. w_k [SEP] [PAD].. with k in [10, 22]: counting sequences w_i = 5 + (a + d*i) mod 20 with a
    random start a and stride d in {1, 2} (a masked word follows from its neighbours and the stride)."""
    input_ids = torch.full((n, MAX_LEN), PAD, dtype=torch.long)
    attention_mask = torch.zeros(n, MAX_LEN, dtype=torch.long)
    lengths = torch.randint(10, MAX_LEN - 1, (n,), generator=gen)
    starts = torch.randint(0, NUM_WORDS, (n,), generator=gen)
    strides = torch.randint(1, 3, (n,), generator=gen)
    for i in range(n):
        k = int(lengths[i])
        words = NUM_SPECIAL + (starts[i] + strides[i] * torch.arange(k)) % NUM_WORDS
        input_ids[i, 0] = CLS
        input_ids[i, 1:k + 1] = words
        input_ids[i, k + 1] = SEP
        attention_mask[i, :k + 2] = 1
    return input_ids, attention_mask


def mask_tokens(input_ids: torch.Tensor, gen: torch.Generator | None = None):
    """DataCollatorForLanguageModeling.torch_mask_tokens: 15% of the non-special tokens become targets;
    of those 80% -> [MASK], 10% -> a random token of the vocabulary, 10% unchanged; labels -100 elsewhere."""
    labels = input_ids.clone()
    inputs = input_ids.clone()
    probability_matrix = torch.full(labels.shape, MLM_PROBABILITY, device=labels.device)
    special_tokens_mask = input_ids < NUM_SPECIAL  # [PAD], [CLS], [SEP], ...
    probability_matrix.masked_fill_(special_tokens_mask, value=0.0)
    masked_indices = torch.bernoulli(probability_matrix, generator=gen).bool()
    labels[~masked_indices] = -100
    indices_replaced = torch.bernoulli(torch.full(labels.shape, 0.8, device=labels.device), generator=gen).bool() & masked_indices
    inputs[indices_replaced] = MASK
    indices_random = torch.bernoulli(torch.full(labels.shape, 0.5, device=labels.device), generator=gen).bool() & masked_indices & ~indices_replaced
    random_words = torch.randint(VOCAB_SIZE, labels.shape, dtype=torch.long, generator=gen, device=labels.device)
    inputs[indices_random] = random_words[indices_random]
    return inputs, labels


def mlm_loss(prediction_scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(prediction_scores.view(-1, VOCAB_SIZE), labels.view(-1), ignore_index=-100)


def masked_accuracy(prediction_scores: torch.Tensor, labels: torch.Tensor) -> float:
    keep = labels != -100
    return float((prediction_scores.argmax(dim=-1)[keep] == labels[keep]).float().mean())


def train_step(model: BertForMaskedLM, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    """Trainer + DataCollatorForLanguageModeling: the collator masks every time it builds a batch, so each
    step sees a fresh 15% / 80-10-10 masking of the same sentences (dynamic masking)."""
    (inputs, attention_mask), labels = batch
    input_ids = torch.where(labels != -100, labels, inputs)  # undo the collator to get the sentences back
    inputs, labels = mask_tokens(input_ids)
    optimizer.zero_grad()
    loss = mlm_loss(model(inputs, attention_mask), labels)
    loss.backward()
    optimizer.step()
    return loss.detach()


def make_optimizer(params) -> torch.optim.Optimizer:
    params = list(params)
    decay = [p for p in params if p.ndim > 1]
    no_decay = [p for p in params if p.ndim <= 1]  # biases and LayerNorm weights
    groups = [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=6e-4, betas=(0.9, 0.98), eps=1e-6)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    input_ids, attention_mask = make_sentences(gen, COUNT)
    inputs, labels = mask_tokens(input_ids, gen)
    spec = {
        "model": BertForMaskedLM(),
        "batch": ((inputs, attention_mask), labels),
        "loss_fn": mlm_loss,
        "task": "custom",
        "metric": masked_accuracy,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
