"""karpathy/nanoGPT train.py + model.py with config/train_shakespeare_char.py settings: GPT (pre-LN blocks, bias-free LayerNorm/Linear, causal SDPA, GELU MLP, tied wte/lm_head, 0.02 init with scaled c_proj, dropout 0.2) on character text; its step runs the micro-batches (gradient_accumulation_steps=2) under torch.autocast(bfloat16) (here on CPU), divides each loss by the step count, clip_grad_norm_(1.0), optimizer.step(), zero_grad(set_to_none=True) afterwards; AdamW lr 1e-3 betas (0.9, 0.99) weight_decay 0.1 on >=2-D tensors only; its get_lr (linear warmup 100 iters, cosine to 1e-4 by 5000) as a LambdaLR stepped inside the step."""

from __future__ import annotations

import math
import weakref

import torch
import torch.nn.functional as F
from torch import nn

# ---------------------------------------------------------------- config (train_shakespeare_char.py, shrunk)
N_LAYER = 2
N_HEAD = 2
N_EMBD = 32
BLOCK_SIZE = 32
DROPOUT = 0.2
BIAS = False
BATCH = 32  # sequences per optimiser step, split into GRADIENT_ACCUMULATION_STEPS micro-batches
GRADIENT_ACCUMULATION_STEPS = 2
LEARNING_RATE = 1e-3
MIN_LR = 1e-4
WARMUP_ITERS = 100
LR_DECAY_ITERS = 5000
WEIGHT_DECAY = 1e-1
BETAS = (0.9, 0.99)
GRAD_CLIP = 1.0
PTDTYPE = torch.bfloat16
VOCAB = " .abcdefghijklmnopqrstuvwxyz"  # prepare.py: chars = sorted(set(text))
VOCAB_SIZE = len(VOCAB)
TASK_SEED = 2022_12_28  # fixes the word list and the word bigrams; the sample seed only draws the text


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias (PyTorch's LayerNorm had no bias=False)."""

    def __init__(self, ndim: int, bias: bool):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD, bias=BIAS)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD, bias=BIAS)
        self.attn_dropout = nn.Dropout(DROPOUT)
        self.resid_dropout = nn.Dropout(DROPOUT)
        self.n_head = N_HEAD
        self.n_embd = N_EMBD
        self.dropout = DROPOUT

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(N_EMBD, 4 * N_EMBD, bias=BIAS)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * N_EMBD, N_EMBD, bias=BIAS)
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = LayerNorm(N_EMBD, bias=BIAS)
        self.attn = CausalSelfAttention()
        self.ln_2 = LayerNorm(N_EMBD, bias=BIAS)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """forward(idx [B, T]) -> logits [B, T, vocab] at every position (nanoGPT's training branch)."""

    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(VOCAB_SIZE, N_EMBD),
            wpe=nn.Embedding(BLOCK_SIZE, N_EMBD),
            drop=nn.Dropout(DROPOUT),
            h=nn.ModuleList([Block() for _ in range(N_LAYER)]),
            ln_f=LayerNorm(N_EMBD, bias=BIAS),
        ))
        self.lm_head = nn.Linear(N_EMBD, VOCAB_SIZE, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * N_LAYER))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx):
        b, t = idx.size()
        assert t <= BLOCK_SIZE
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        return self.lm_head(x)


def lm_loss(logits, targets):
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


# ---------------------------------------------------------------- optimiser and schedule
def configure_optimizers(params) -> torch.optim.Optimizer:
    """nanoGPT's configure_optimizers: weight decay on every tensor of 2 or more dims (matmuls, embeddings), none on
    gains and biases."""
    params = [p for p in params if p.requires_grad]
    decay_params = [p for p in params if p.dim() >= 2]
    nodecay_params = [p for p in params if p.dim() < 2]
    optim_groups = [
        {"params": decay_params, "weight_decay": WEIGHT_DECAY},
        {"params": nodecay_params, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(optim_groups, lr=LEARNING_RATE, betas=BETAS)


def get_lr(it: int) -> float:
    """Linear warmup, then cosine decay down to min_lr."""
    if it < WARMUP_ITERS:
        return LEARNING_RATE * (it + 1) / (WARMUP_ITERS + 1)
    if it > LR_DECAY_ITERS:
        return MIN_LR
    decay_ratio = (it - WARMUP_ITERS) / (LR_DECAY_ITERS - WARMUP_ITERS)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return MIN_LR + coeff * (LEARNING_RATE - MIN_LR)


_schedulers: "weakref.WeakKeyDictionary[torch.optim.Optimizer, torch.optim.lr_scheduler.LambdaLR]" = weakref.WeakKeyDictionary()


def _scheduler(optimizer: torch.optim.Optimizer) -> torch.optim.lr_scheduler.LambdaLR:
    """One LambdaLR per optimizer, made on its first step (iter_num 0 -> get_lr(0))."""
    sched = _schedulers.get(optimizer)
    if sched is None:
        sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: get_lr(it) / LEARNING_RATE)
        _schedulers[optimizer] = sched
    return sched


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    X, Y = batch
    scheduler = _scheduler(optimizer)
    ctx = torch.autocast(device_type=X.device.type, dtype=PTDTYPE)
    micro_x, micro_y = X.chunk(GRADIENT_ACCUMULATION_STEPS), Y.chunk(GRADIENT_ACCUMULATION_STEPS)
    steps = len(micro_x)
    total = torch.zeros((), device=X.device)
    for xb, yb in zip(micro_x, micro_y):
        with ctx:
            logits = model(xb)
            loss = lm_loss(logits, yb)
            loss = loss / steps  # scale the loss to account for gradient accumulation
        loss.backward()
        total += loss.detach().float()
    if GRAD_CLIP != 0.0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)  # nanoGPT flushes the gradients right after the step
    return total


# ---------------------------------------------------------------- data: character text of a small word language
def _language():
    gen = torch.Generator().manual_seed(TASK_SEED)
    letters = VOCAB[2:]
    words = []
    while len(words) < 24:
        n = int(torch.randint(2, 7, (1,), generator=gen))
        w = "".join(letters[int(i)] for i in torch.randint(0, len(letters), (n,), generator=gen))
        if w not in words:
            words.append(w)
    successors = torch.stack([torch.randperm(len(words), generator=gen)[:3] for _ in words])
    return words, successors


def make_batch(seed: int, count: int = BATCH):
    """Random windows of a text whose words follow a sparse bigram grammar (3 successors per word), sentences end
    with '.'; targets are the inputs shifted by one character."""
    gen = torch.Generator().manual_seed(seed)
    words, successors = _language()
    pieces, w = [], int(torch.randint(0, len(words), (1,), generator=gen))
    length = 0
    while length < 64 * count:
        pieces.append(words[w])
        length += len(words[w]) + 1
        if torch.rand(1, generator=gen) < 0.15:
            pieces.append(".")
            w = int(torch.randint(0, len(words), (1,), generator=gen))
        else:
            w = int(successors[w, int(torch.randint(0, 3, (1,), generator=gen))])
    text = " ".join(pieces).replace(" .", ".")
    data = torch.tensor([VOCAB.index(c) for c in text], dtype=torch.long)
    ix = torch.randint(len(data) - BLOCK_SIZE, (count,), generator=gen)
    x = torch.stack([data[i: i + BLOCK_SIZE] for i in ix])
    y = torch.stack([data[i + 1: i + 1 + BLOCK_SIZE] for i in ix])
    return x, y


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    batch = make_batch(seed)
    torch.manual_seed(seed)
    spec = {
        "model": GPT(),
        "batch": batch,
        "loss_fn": lm_loss,
        "task": "lm",
        "vocab_size": VOCAB_SIZE,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = configure_optimizers
    return spec
