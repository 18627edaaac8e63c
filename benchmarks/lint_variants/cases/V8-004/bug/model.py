import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class BLSTM(nn.Module):
    def __init__(self, dim, layers=2):
        super().__init__()
        self.lstm = nn.LSTM(dim, dim, num_layers=layers, bidirectional=True)
        self.linear = nn.Linear(2 * dim, dim)

    def forward(self, x):
        x = x.permute(2, 0, 1)
        x = self.linear(self.lstm(x)[0])
        return x.permute(1, 2, 0)


class Demucs(nn.Module):
    def __init__(self, sources=("drums", "bass", "other", "vocals"), audio_channels=2, channels=48,
                 depth=5, kernel_size=8, stride=4, growth=2.0, lstm_layers=2):
        super().__init__()
        self.sources = list(sources)
        self.audio_channels = audio_channels
        self.kernel_size, self.stride, self.depth = kernel_size, stride, depth
        self.encoder = nn.ModuleList()
        self.decoder = nn.ModuleList()
        in_ch = audio_channels
        for index in range(depth):
            self.encoder.append(nn.Sequential(
                nn.Conv1d(in_ch, channels, kernel_size, stride), nn.ReLU(),
                nn.Conv1d(channels, 2 * channels, 1), nn.GLU(dim=1)))
            out_ch = len(self.sources) * audio_channels if index == 0 else in_ch
            dec = [nn.Conv1d(channels, 2 * channels, 3, padding=1), nn.GLU(dim=1),
                   nn.ConvTranspose1d(channels, out_ch, kernel_size, stride)]
            if index > 0:
                dec.append(nn.ReLU())
            self.decoder.insert(0, nn.Sequential(*dec))
            in_ch = channels
            channels = int(growth * channels)
        self.lstm = BLSTM(in_ch, lstm_layers) if lstm_layers else None

    def valid_length(self, length):
        for _ in range(self.depth):
            length = max(math.ceil((length - self.kernel_size) / self.stride) + 1, 1)
        for _ in range(self.depth):
            length = (length - 1) * self.stride + self.kernel_size
        return int(length)

    def forward(self, mix):
        length = mix.shape[-1]
        mono = mix.mean(dim=1, keepdim=True)
        mean, std = mono.mean(dim=-1, keepdim=True), mono.std(dim=-1, keepdim=True)
        x = (mix - mean) / (1e-5 + std)
        delta = self.valid_length(length) - length
        x = F.pad(x, (delta // 2, delta - delta // 2))
        skips = []
        for enc in self.encoder:
            x = enc(x)
            skips.append(x)
        if self.lstm is not None:
            x = self.lstm(x)
        for dec in self.decoder:
            skip = skips.pop(-1)
            offset = (skip.shape[-1] - x.shape[-1]) // 2
            x = dec(x + skip[..., offset:offset + x.shape[-1]])
        offset = (x.shape[-1] - length) // 2
        x = x[..., offset:offset + length]
        x = x * std + mean
        return x.view(x.size(0), len(self.sources), self.audio_channels, length)
