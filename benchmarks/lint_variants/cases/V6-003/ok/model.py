import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBlock(nn.Module):
    def __init__(self, cin, cout, k=5):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k, padding=k // 2)
        self.norm = nn.BatchNorm1d(cout)

    def forward(self, x):
        return F.leaky_relu(self.norm(self.conv(x)), 0.1)


class Denoiser(nn.Module):
    def __init__(self, n_fft=512, hidden=256):
        super().__init__()
        n_bins = n_fft // 2 + 1
        self.net = nn.Sequential(ConvBlock(n_bins, hidden), ConvBlock(hidden, hidden),
                                 ConvBlock(hidden, hidden), nn.Conv1d(hidden, n_bins, 1))

    def forward(self, mag):
        mask = torch.sigmoid(self.net(mag))
        return mag * mask


def stft_mag(wav, n_fft=512, hop=128):
    window = torch.hann_window(n_fft, device=wav.device)
    spec = torch.stft(wav, n_fft, hop, window=window, return_complex=True)
    return spec.abs()


def compute_losses(est_mag, clean_mag):
    l1 = F.l1_loss(est_mag, clean_mag)
    sc = torch.norm(clean_mag - est_mag, p="fro") / torch.norm(clean_mag, p="fro")
    log_mag = F.l1_loss(torch.log1p(est_mag), torch.log1p(clean_mag))
    return {"l1": l1, "spectral_convergence": sc, "log_mag": log_mag}
