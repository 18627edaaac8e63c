import torch
import torch.nn as nn


def conv_block(in_ch, out_ch):
    return nn.Sequential(
        nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True),
        nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    def __init__(self, img_ch=3, output_ch=1, base=32):
        super().__init__()
        chs = [base, base * 2, base * 4, base * 8]
        self.pool = nn.MaxPool2d(2)
        self.enc = nn.ModuleList()
        prev = img_ch
        for c in chs:
            self.enc.append(conv_block(prev, c))
            prev = c
        self.bottleneck = conv_block(chs[-1], chs[-1] * 2)
        self.up = nn.ModuleList([nn.ConvTranspose2d(c * 2, c, 2, stride=2) for c in reversed(chs)])
        self.dec = nn.ModuleList([conv_block(c * 2, c) for c in reversed(chs)])
        self.out = nn.Conv2d(base, output_ch, 1)

    def forward(self, x):
        skips = []
        for enc in self.enc:
            x = enc(x)
            skips.append(x)
            x = self.pool(x)
        x = self.bottleneck(x)
        for up, dec, skip in zip(self.up, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), skip], dim=1))
        return self.out(x)
