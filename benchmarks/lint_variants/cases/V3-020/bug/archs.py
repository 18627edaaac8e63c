import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, nf=64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(nf, nf, 3, 1, 1), nn.BatchNorm2d(nf), nn.PReLU(),
            nn.Conv2d(nf, nf, 3, 1, 1), nn.BatchNorm2d(nf))

    def forward(self, x):
        return x + self.body(x)


class SRResNet(nn.Module):
    def __init__(self, num_in_ch=3, num_out_ch=3, nf=64, num_block=16, upscale=4):
        super().__init__()
        self.conv_first = nn.Sequential(nn.Conv2d(num_in_ch, nf, 9, 1, 4), nn.PReLU())
        self.body = nn.Sequential(*[ResidualBlock(nf) for _ in range(num_block)])
        self.conv_body = nn.Sequential(nn.Conv2d(nf, nf, 3, 1, 1), nn.BatchNorm2d(nf))
        ups = []
        for _ in range(upscale // 2):
            ups += [nn.Conv2d(nf, nf * 4, 3, 1, 1), nn.PixelShuffle(2), nn.PReLU()]
        self.upsample = nn.Sequential(*ups)
        self.conv_last = nn.Conv2d(nf, num_out_ch, 9, 1, 4)

    def forward(self, x):
        feat = self.conv_first(x)
        feat = feat + self.conv_body(self.body(feat))
        return self.conv_last(self.upsample(feat))
