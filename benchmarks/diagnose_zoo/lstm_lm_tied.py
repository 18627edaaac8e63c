"""pytorch/examples word_language_model's RNNModel (embedding and output dropout, LSTM, decoder tied to the encoder, uniform(-0.1, 0.1) init, log_softmax + NLLLoss, SGD lr 20 with clip_grad_norm 0.25), batch-first here."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._data import successor_sequences

NTOKEN = 40
NINP = NHID = 32  # tied weights need nhid == emsize
SEQ_LEN = 12
BATCH_SIZE = 16
CLIP = 0.25
LR = 20.0


class RNNModel(nn.Module):
    def __init__(self, ntoken: int, ninp: int, nhid: int, nlayers: int = 2, dropout: float = 0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout, batch_first=True)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight  # weight tying (Press & Wolf 2016)
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        emb = self.drop(self.encoder(input))
        output, _ = self.rnn(emb)
        decoded = self.decoder(self.drop(output))
        return F.log_softmax(decoded, dim=-1)  # (B, T, ntoken) log-probabilities


criterion = nn.NLLLoss()


def loss_fn(output: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return criterion(output.view(-1, NTOKEN), targets.reshape(-1))


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=LR)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    data, targets = batch
    model.zero_grad()
    loss = loss_fn(model(data), targets)
    loss.backward()
    # clip_grad_norm helps prevent the exploding gradient problem in RNNs / LSTMs
    torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    seq = successor_sequences(gen, NTOKEN, SEQ_LEN + 1, BATCH_SIZE)
    spec = {
        "model": RNNModel(NTOKEN, NINP, NHID),
        "batch": (seq[:, :-1], seq[:, 1:]),
        "loss_fn": loss_fn,
        "task": "lm",
        "vocab_size": NTOKEN,
        "seq_dim": 1,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
