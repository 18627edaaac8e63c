from typing import List, Sequence

import torch
import torch.nn as nn


class SeparableConv1d(nn.Module):
    def __init__(self, in_ch: int, out_ch: int, kernel: int, stride: int = 1, dilation: int = 1):
        super().__init__()
        pad = (kernel // 2) * dilation
        self.depthwise = nn.Conv1d(in_ch, in_ch, kernel, stride=stride, padding=pad, dilation=dilation,
                                   groups=in_ch, bias=False)
        self.pointwise = nn.Conv1d(in_ch, out_ch, 1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pointwise(self.depthwise(x))


class JasperBlock(nn.Module):
    def __init__(self, in_ch: int, out_ch: int, kernel: int, repeat: int = 5, dropout: float = 0.2,
                 residual: bool = True, separable: bool = True):
        super().__init__()
        layers: List[nn.Module] = []
        ch = in_ch
        for i in range(repeat):
            conv = SeparableConv1d(ch, out_ch, kernel) if separable else nn.Conv1d(ch, out_ch, kernel,
                                                                                    padding=kernel // 2, bias=False)
            layers += [conv, nn.BatchNorm1d(out_ch, eps=1e-3, momentum=0.1)]
            if i < repeat - 1:
                layers += [nn.ReLU(inplace=True), nn.Dropout(dropout)]
            ch = out_ch
        self.body = nn.Sequential(*layers)
        self.residual = None
        if residual:
            self.residual = nn.Sequential(nn.Conv1d(in_ch, out_ch, 1, bias=False), nn.BatchNorm1d(out_ch))
        self.out = nn.Sequential(nn.ReLU(inplace=True), nn.Dropout(dropout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        if self.residual is not None:
            y = y + self.residual(x)
        return self.out(y)


class QuartzNet(nn.Module):
    """QuartzNet 5x5-style encoder with a 1x1 CTC decoder."""

    def __init__(self, n_mels: int = 64, vocab_size: int = 29,
                 channels: Sequence[int] = (256, 256, 256, 512, 512, 512),
                 kernels: Sequence[int] = (33, 39, 51, 63, 75), repeat: int = 5, dropout: float = 0.2):
        super().__init__()
        self.prologue = nn.Sequential(
            SeparableConv1d(n_mels, channels[0], kernel=33, stride=2),
            nn.BatchNorm1d(channels[0]),
            nn.ReLU(inplace=True),
        )
        blocks = []
        for i, k in enumerate(kernels):
            blocks.append(JasperBlock(channels[i], channels[i + 1], k, repeat=repeat, dropout=dropout))
        self.blocks = nn.Sequential(*blocks)
        self.epilogue = nn.Sequential(
            SeparableConv1d(channels[-1], 512, kernel=87, dilation=2),
            nn.BatchNorm1d(512),
            nn.ReLU(inplace=True),
            nn.Conv1d(512, 1024, 1, bias=False),
            nn.BatchNorm1d(1024),
            nn.ReLU(inplace=True),
        )
        self.decoder = nn.Conv1d(1024, vocab_size, 1)

    @staticmethod
    def output_lengths(lengths: torch.Tensor) -> torch.Tensor:
        return torch.div(lengths + 1, 2, rounding_mode="floor")

    def forward(self, feats: torch.Tensor, lengths: torch.Tensor):
        x = self.prologue(feats)
        x = self.blocks(x)
        x = self.epilogue(x)
        logits = self.decoder(x).transpose(1, 2)
        return logits.log_softmax(dim=-1), self.output_lengths(lengths)
