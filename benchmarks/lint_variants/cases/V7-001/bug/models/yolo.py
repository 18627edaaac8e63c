import logging
import math

import torch
import torch.nn as nn

LOGGER = logging.getLogger(__name__)

ANCHORS = (
    (10, 13, 16, 30, 33, 23),
    (30, 61, 62, 45, 59, 119),
    (116, 90, 156, 198, 373, 326),
)


def autopad(k, p=None):
    if p is None:
        p = k // 2 if isinstance(k, int) else [x // 2 for x in k]
    return p


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, autopad(k, p), groups=g, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU() if act is True else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c_, c2, 3, 1)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C3(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c1, c_, 1, 1)
        self.cv3 = Conv(2 * c_, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class Detect(nn.Module):
    def __init__(self, nc=80, anchors=ANCHORS, ch=(), strides=(8, 16, 32)):
        super().__init__()
        self.nc = nc
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.register_buffer("stride", torch.tensor(strides, dtype=torch.float32))
        self.register_buffer("anchor_grid", torch.tensor(anchors).float().view(self.nl, 1, -1, 1, 1, 2))
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)
        self._init_biases()

    def _init_biases(self):
        for mi, s in zip(self.m, self.stride):
            b = mi.bias.view(self.na, -1)
            b.data[:, 4] += math.log(8 / (640 / s) ** 2)
            b.data[:, 5:] += math.log(0.6 / (self.nc - 0.99999))
            mi.bias = nn.Parameter(b.view(-1), requires_grad=True)

    @staticmethod
    def _make_grid(nx, ny, device):
        yv, xv = torch.meshgrid(torch.arange(ny, device=device), torch.arange(nx, device=device), indexing="ij")
        return torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()

    def forward(self, feats):
        raw, decoded = [], []
        for i in range(self.nl):
            p = self.m[i](feats[i])
            bs, _, ny, nx = p.shape
            p = p.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            raw.append(p)
            grid = self._make_grid(nx, ny, p.device)
            y = p.detach().sigmoid()
            xy = (y[..., 0:2] * 2 - 0.5 + grid) * self.stride[i]
            wh = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]
            decoded.append(torch.cat((xy, wh, y[..., 4:]), -1).view(bs, -1, self.no))
        return torch.cat(decoded, 1), raw


class Model(nn.Module):
    def __init__(self, nc=80, width=0.25, depth=0.33):
        super().__init__()
        self.nc = nc
        c = lambda x: max(8, int(math.ceil(x * width / 8) * 8))
        n = lambda x: max(round(x * depth), 1)
        self.stem = Conv(3, c(64), 6, 2, 2)
        self.stage1 = nn.Sequential(Conv(c(64), c(128), 3, 2), C3(c(128), c(128), n(3)))
        self.stage2 = nn.Sequential(Conv(c(128), c(256), 3, 2), C3(c(256), c(256), n(6)))
        self.stage3 = nn.Sequential(Conv(c(256), c(512), 3, 2), C3(c(512), c(512), n(9)))
        self.stage4 = nn.Sequential(Conv(c(512), c(1024), 3, 2), C3(c(1024), c(1024), n(3)))
        self.detect = Detect(nc, ANCHORS, ch=(c(256), c(512), c(1024)))
        LOGGER.info("Model summary: %.2fM params", sum(p.numel() for p in self.parameters()) / 1e6)

    def forward(self, x):
        x = self.stage1(self.stem(x))
        p3 = self.stage2(x)
        p4 = self.stage3(p3)
        p5 = self.stage4(p4)
        return self.detect([p3, p4, p5])
