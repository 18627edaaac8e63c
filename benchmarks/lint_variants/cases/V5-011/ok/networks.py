import torch
import torch.nn as nn


class ConvBlock3d(nn.Sequential):
    def __init__(self, cin, cout, dropout=0.1):
        super().__init__(
            nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout), nn.LeakyReLU(0.01, True),
            nn.Dropout3d(dropout),
            nn.Conv3d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout), nn.LeakyReLU(0.01, True),
        )


class UNet3D(nn.Module):
    def __init__(self, in_channels=1, out_channels=2, channels=(16, 32, 64, 128)):
        super().__init__()
        self.enc = nn.ModuleList()
        c = in_channels
        for ch in channels:
            self.enc.append(ConvBlock3d(c, ch))
            c = ch
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        for ch in reversed(channels[:-1]):
            self.up.append(nn.ConvTranspose3d(c, ch, 2, stride=2))
            self.dec.append(ConvBlock3d(2 * ch, ch))
            c = ch
        self.out = nn.Conv3d(c, out_channels, 1)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.enc):
            x = block(x)
            if i < len(self.enc) - 1:
                skips.append(x)
                x = nn.functional.max_pool3d(x, 2)
        for up, dec, skip in zip(self.up, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), skip], 1))
        return self.out(x)
