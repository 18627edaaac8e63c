import torch
import torch.nn as nn
from torch.nn.utils import weight_norm

MODEL_REGISTRY = {}


def register(name):
    def deco(cls):
        MODEL_REGISTRY[name] = cls
        return cls
    return deco


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super().__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_in, n_out, kernel_size, dilation, dropout=0.2):
        super().__init__()
        padding = (kernel_size - 1) * dilation
        self.net = nn.Sequential(
            weight_norm(nn.Conv1d(n_in, n_out, kernel_size, padding=padding, dilation=dilation)),
            Chomp1d(padding), nn.ReLU(), nn.Dropout(dropout),
            weight_norm(nn.Conv1d(n_out, n_out, kernel_size, padding=padding, dilation=dilation)),
            Chomp1d(padding), nn.ReLU(), nn.Dropout(dropout))
        self.downsample = nn.Conv1d(n_in, n_out, 1) if n_in != n_out else None

    def forward(self, x):
        res = x if self.downsample is None else self.downsample(x)
        return torch.relu(self.net(x) + res)


@register("tcn")
class TCNForecaster(nn.Module):
    def __init__(self, enc_in, pred_len, channels=(64, 64, 64), kernel_size=3, dropout=0.2):
        super().__init__()
        layers = []
        for i, ch in enumerate(channels):
            layers.append(TemporalBlock(enc_in if i == 0 else channels[i - 1], ch, kernel_size, 2 ** i, dropout))
        self.tcn = nn.Sequential(*layers)
        self.head = nn.Linear(channels[-1], pred_len * enc_in)
        self.pred_len, self.enc_in = pred_len, enc_in

    def forward(self, x):
        # x: [batch, seq_len, enc_in]
        b, t, c = x.shape
        h = self.tcn(x.permute(0, 2, 1))
        out = self.head(h[:, :, -1])
        return out.view(b, self.pred_len, self.enc_in)


def build_model(args):
    return MODEL_REGISTRY[args.model](args.enc_in, args.pred_len, dropout=args.dropout)
