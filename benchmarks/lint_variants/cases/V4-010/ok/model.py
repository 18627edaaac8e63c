import math

import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, n_feats, res_scale=0.1):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(n_feats, n_feats, 3, padding=1), nn.ReLU(True),
            nn.Conv2d(n_feats, n_feats, 3, padding=1))
        self.res_scale = res_scale

    def forward(self, x):
        return x + self.body(x) * self.res_scale


class EDSR(nn.Module):
    def __init__(self, opt):
        super().__init__()
        n = opt.n_feats
        self.head = nn.Conv2d(3, n, 3, padding=1)
        self.body = nn.Sequential(*[ResBlock(n) for _ in range(opt.n_resblocks)],
                                  nn.Conv2d(n, n, 3, padding=1))
        up = []
        for _ in range(int(math.log(opt.scale, 2))):
            up += [nn.Conv2d(n, 4 * n, 3, padding=1), nn.PixelShuffle(2)]
        self.tail = nn.Sequential(*up, nn.Conv2d(n, 3, 3, padding=1))

    def forward(self, x):
        x = self.head(x)
        x = x + self.body(x)
        return self.tail(x)
