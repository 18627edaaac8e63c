import torch
import torch.nn as nn
import torch.nn.functional as F


class PhaseShuffle(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.n = n

    def forward(self, x):
        if self.n == 0:
            return x
        shift = int(torch.randint(-self.n, self.n + 1, (1,)))
        return F.pad(x, (max(shift, 0), max(-shift, 0)), mode="reflect")[..., max(-shift, 0): x.size(-1) + max(-shift, 0)]


class WaveGANGenerator(nn.Module):
    def __init__(self, latent_dim=100, d=64):
        super().__init__()
        self.d = d
        self.fc = nn.Linear(latent_dim, 256 * d)
        chans = [16 * d, 8 * d, 4 * d, 2 * d, d]
        self.deconvs = nn.ModuleList(
            [nn.ConvTranspose1d(chans[i], chans[i + 1], 25, 4, padding=11, output_padding=1) for i in range(4)])
        self.out = nn.ConvTranspose1d(d, 1, 25, 4, padding=11, output_padding=1)

    def forward(self, z):
        x = F.relu(self.fc(z).view(-1, 16 * self.d, 16))
        for deconv in self.deconvs:
            x = F.relu(deconv(x))
        return torch.tanh(self.out(x))


class WaveGANDiscriminator(nn.Module):
    def __init__(self, d=64, shift_factor=2):
        super().__init__()
        chans = [1, d, 2 * d, 4 * d, 8 * d, 16 * d]
        self.convs = nn.ModuleList([nn.Conv1d(chans[i], chans[i + 1], 25, 4, padding=11) for i in range(5)])
        self.ps = PhaseShuffle(shift_factor)
        self.fc = nn.Linear(256 * d, 1)

    def forward(self, x):
        for i, conv in enumerate(self.convs):
            x = F.leaky_relu(conv(x), 0.2)
            if i < 4:
                x = self.ps(x)
        return self.fc(x.flatten(1))
