"""WaveNet (van den Oord et al. 2016; as in vincentherrmann/pytorch-wavenet): causal dilated Conv1d stack with gated tanh x sigmoid units, residual and skip 1x1 convolutions, (B, Q, T) logits over mu-law classes for CrossEntropyLoss with (B, T) next-sample targets, Adam 1e-3."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

QUANTIZATION = 16  # mu-law classes (WaveNet uses 256)
SEQ_LEN = 16
BATCH_SIZE = 8
RESIDUAL, DILATION_CHANNELS, SKIP = 16, 16, 32
DILATIONS = (1, 2, 4, 8)


class CausalConv1d(nn.Conv1d):
    """A Conv1d that pads on the left only, so output t sees inputs <= t."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 2, dilation: int = 1):
        super().__init__(in_channels, out_channels, kernel_size, dilation=dilation)
        self.left = (kernel_size - 1) * dilation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(F.pad(x, (self.left, 0)))


class ResidualLayer(nn.Module):
    def __init__(self, dilation: int, last: bool = False):
        super().__init__()
        self.filter_conv = CausalConv1d(RESIDUAL, DILATION_CHANNELS, dilation=dilation)
        self.gate_conv = CausalConv1d(RESIDUAL, DILATION_CHANNELS, dilation=dilation)
        # the last layer feeds only the skip sum: a residual output there would go unused
        self.residual_conv = None if last else nn.Conv1d(DILATION_CHANNELS, RESIDUAL, 1)
        self.skip_conv = nn.Conv1d(DILATION_CHANNELS, SKIP, 1)

    def forward(self, x: torch.Tensor):
        z = torch.tanh(self.filter_conv(x)) * torch.sigmoid(self.gate_conv(x))  # gated activation unit
        residual = x if self.residual_conv is None else x + self.residual_conv(z)
        return residual, self.skip_conv(z)


class WaveNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(QUANTIZATION, RESIDUAL)  # stands in for the one-hot input convolution
        self.start_conv = CausalConv1d(RESIDUAL, RESIDUAL, kernel_size=1)
        self.layers = nn.ModuleList(ResidualLayer(d, last=i == len(DILATIONS) - 1) for i, d in enumerate(DILATIONS))
        self.end_conv_1 = nn.Conv1d(SKIP, SKIP, 1)
        self.end_conv_2 = nn.Conv1d(SKIP, QUANTIZATION, 1)

    def forward(self, samples: torch.Tensor) -> torch.Tensor:  # (B, T) quantised samples
        x = self.start_conv(self.embedding(samples).transpose(1, 2))
        skip = 0
        for layer in self.layers:
            x, s = layer(x)
            skip = skip + s
        return self.end_conv_2(F.relu(self.end_conv_1(F.relu(skip))))  # (B, Q, T)


def mu_law_encode(x: torch.Tensor, channels: int = QUANTIZATION) -> torch.Tensor:
    mu = channels - 1
    y = torch.sign(x) * torch.log1p(mu * x.abs()) / torch.log1p(torch.tensor(float(mu)))
    return ((y + 1) / 2 * mu + 0.5).long().clamp(0, mu)


def make_audio(gen: torch.Generator) -> torch.Tensor:
    """Mixtures of two sines with random frequencies and phases plus a little noise, mu-law quantised."""
    t = torch.arange(SEQ_LEN + 1).float()
    f = 0.05 + 0.2 * torch.rand(BATCH_SIZE, 2, 1, generator=gen)
    phase = 6.28 * torch.rand(BATCH_SIZE, 2, 1, generator=gen)
    wave = 0.6 * torch.sin(6.28 * f * t + phase).sum(1) / 2 + 0.02 * torch.randn(BATCH_SIZE, SEQ_LEN + 1, generator=gen)
    return mu_law_encode(wave)


criterion = nn.CrossEntropyLoss()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    x, target = batch
    optimizer.zero_grad()
    loss = criterion(model(x), target)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    audio = make_audio(gen)
    spec = {
        "model": WaveNet(),
        "batch": (audio[:, :-1], audio[:, 1:]),  # predict the next sample
        "loss_fn": criterion,
        "task": "lm",
        "vocab_size": QUANTIZATION,
        "seq_dim": 1,
        "causal": True,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
