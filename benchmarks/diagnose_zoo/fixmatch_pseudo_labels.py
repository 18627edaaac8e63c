"""FixMatch (Sohn et al. 2020) as in kekmodel/FixMatch-pytorch: WideResNet (pre-activation BasicBlocks, BN momentum 0.001, LeakyReLU 0.1), labelled/weak/strong batches interleaved through one forward, Lx = CE + lambda_u(1) * masked CE of strong-view logits against hard pseudo-labels of the weak view (softmax(logits/T=1), threshold 0.95), SGD lr 0.03 momentum 0.9 nesterov, wd 5e-4 off biases/BN, zero_grad after the step."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 4
IMG = 12
BATCH = 8   # labelled images per step (2 per class)
MU = 7      # unlabelled images per labelled one
THRESHOLD, T, LAMBDA_U = 0.95, 1.0, 1.0
MEAN = torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1)
STD = torch.tensor([0.25, 0.25, 0.25]).view(1, 3, 1, 1)


# ----------------------------------------------------------------------------- data
def make_images(gen: torch.Generator, n: int, balanced: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Coloured shapes (horizontal bar, vertical bar, disk, ring) at random positions/sizes/colours, values in [0, 1]."""
    labels = torch.arange(n) % NUM_CLASSES
    if not balanced:
        labels = torch.randint(0, NUM_CLASSES, (n,), generator=gen)
    labels = labels[torch.randperm(n, generator=gen)]
    yy, xx = torch.meshgrid(torch.arange(IMG).float(), torch.arange(IMG).float(), indexing="ij")
    cy = IMG / 2 - 0.5 + (torch.rand(n, generator=gen) * 2 - 1)
    cx = IMG / 2 - 0.5 + (torch.rand(n, generator=gen) * 2 - 1)
    r = 3.0 + 1.0 * torch.rand(n, generator=gen)
    dy, dx = yy - cy.view(-1, 1, 1), xx - cx.view(-1, 1, 1)
    rr, d2 = r.view(-1, 1, 1), dy**2 + dx**2
    disk = d2 <= rr**2
    hbar = (dy.abs() <= 1) & (dx.abs() <= rr)
    vbar = (dx.abs() <= 1) & (dy.abs() <= rr)
    ring = disk & (d2 >= (rr - 1.6) ** 2)
    masks = torch.stack([hbar, vbar, disk, ring], 1)[torch.arange(n), labels].float().unsqueeze(1)
    bg = torch.rand(n, 3, 1, 1, generator=gen) * 0.3
    fg = bg + 0.5 + 0.2 * torch.rand(n, 3, 1, 1, generator=gen)
    img = bg * (1 - masks) + fg * masks + 0.03 * torch.randn(n, 3, IMG, IMG, generator=gen)
    return img.clamp(0, 1), labels


def weak_augment(img: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """RandomHorizontalFlip + RandomCrop(size, padding=int(size*0.125), reflect); images stay in [0, 1]."""
    pad = max(1, int(IMG * 0.125))
    padded = F.pad(img, (pad,) * 4, mode="reflect")
    out = torch.empty_like(img)
    for k in range(img.size(0)):
        oy, ox = torch.randint(0, 2 * pad + 1, (2,), generator=gen).tolist()
        v = padded[k, :, oy:oy + IMG, ox:ox + IMG]
        out[k] = v.flip(-1) if torch.rand(1, generator=gen) < 0.5 else v
    return out


def _affine(x: torch.Tensor, theta) -> torch.Tensor:
    grid = F.affine_grid(torch.tensor(theta, dtype=x.dtype).view(1, 2, 3), [1, *x.shape], align_corners=False)
    return F.grid_sample(x.unsqueeze(0), grid, padding_mode="zeros", align_corners=False)[0] + \
        0.5 * (1 - F.grid_sample(torch.ones(1, *x.shape), grid, padding_mode="zeros", align_corners=False)[0])


def _blend(a, b, f):
    return (b + f * (a - b)).clamp(0, 1)


def rand_augment_mc(x: torch.Tensor, gen: torch.Generator, n: int = 2, m: int = 10) -> torch.Tensor:
    """RandAugmentMC(n=2, m=10) of the fixmatch_augment_pool on one [0, 1] image: each of n random ops is applied
    with p=0.5 at a random magnitude v in [1, m]; then CutoutAbs of half the side, filled with grey."""
    ops = ["AutoContrast", "Brightness", "Color", "Contrast", "Identity", "Posterize", "Rotate", "Sharpness",
           "ShearX", "ShearY", "Solarize", "TranslateX", "TranslateY"]
    for _ in range(n):
        op = ops[int(torch.randint(0, len(ops), (1,), generator=gen))]
        v = int(torch.randint(1, m + 1, (1,), generator=gen))
        if torch.rand(1, generator=gen) >= 0.5:
            continue
        sign = 1.0 if torch.rand(1, generator=gen) < 0.5 else -1.0
        fv = lambda max_v, bias=0.0: v * max_v / 10 + bias  # noqa: E731  (_float_parameter)
        if op == "AutoContrast":
            lo, hi = x.amin(dim=(1, 2), keepdim=True), x.amax(dim=(1, 2), keepdim=True)
            x = (x - lo) / (hi - lo).clamp_min(1e-3)
        elif op == "Brightness":
            x = _blend(x, torch.zeros_like(x), fv(0.9, 0.05))
        elif op == "Color":
            x = _blend(x, x.mean(0, keepdim=True).expand_as(x), fv(0.9, 0.05))
        elif op == "Contrast":
            x = _blend(x, x.mean().expand_as(x), fv(0.9, 0.05))
        elif op == "Posterize":
            bits = 4 - int(v * 4 / 10)
            x = torch.floor(x * 255 / 2 ** (8 - bits)) * 2 ** (8 - bits) / 255
        elif op == "Rotate":
            a = math.radians(sign * fv(30))
            x = _affine(x, [math.cos(a), -math.sin(a), 0, math.sin(a), math.cos(a), 0])
        elif op == "Sharpness":
            k = torch.tensor([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=x.dtype) / 13
            blur = F.conv2d(F.pad(x.unsqueeze(1), (1, 1, 1, 1), mode="replicate"), k.view(1, 1, 3, 3)).squeeze(1)
            x = _blend(x, blur, fv(0.9, 0.05))
        elif op == "ShearX":
            x = _affine(x, [1, sign * fv(0.3), 0, 0, 1, 0])
        elif op == "ShearY":
            x = _affine(x, [1, 0, 0, sign * fv(0.3), 1, 0])
        elif op == "Solarize":
            thr = (256 - v * 256 / 10) / 255
            x = torch.where(x >= thr, 1 - x, x)
        elif op == "TranslateX":
            x = _affine(x, [1, 0, sign * 2 * fv(0.3), 0, 1, 0])
        elif op == "TranslateY":
            x = _affine(x, [1, 0, 0, 0, 1, sign * 2 * fv(0.3)])
    # CutoutAbs(img, 16) on 32 px images: a square of half the side at a random centre, grey fill
    size = IMG // 2
    cy, cx = torch.randint(0, IMG, (2,), generator=gen).tolist()
    y0, x0 = max(0, cy - size // 2), max(0, cx - size // 2)
    x = x.clone()
    x[:, y0:min(IMG, y0 + size), x0:min(IMG, x0 + size)] = 127 / 255
    return x.clamp(0, 1)


def normalize(x: torch.Tensor) -> torch.Tensor:
    return (x - MEAN) / STD


# ----------------------------------------------------------------------------- model
class BasicBlock(nn.Module):
    def __init__(self, in_planes, out_planes, stride, drop_rate=0.0, activate_before_residual=False):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(in_planes, momentum=0.001)
        self.relu1 = nn.LeakyReLU(negative_slope=0.1, inplace=True)
        self.conv1 = nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_planes, momentum=0.001)
        self.relu2 = nn.LeakyReLU(negative_slope=0.1, inplace=True)
        self.conv2 = nn.Conv2d(out_planes, out_planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = drop_rate
        self.equalInOut = in_planes == out_planes
        self.convShortcut = (not self.equalInOut) and nn.Conv2d(
            in_planes, out_planes, kernel_size=1, stride=stride, padding=0, bias=False) or None
        self.activate_before_residual = activate_before_residual

    def forward(self, x):
        if not self.equalInOut and self.activate_before_residual:
            x = self.relu1(self.bn1(x))
        else:
            out = self.relu1(self.bn1(x))
        out = self.relu2(self.bn2(self.conv1(out if self.equalInOut else x)))
        if self.drop_rate > 0:
            out = F.dropout(out, p=self.drop_rate, training=self.training)
        out = self.conv2(out)
        return torch.add(x if self.equalInOut else self.convShortcut(x), out)


class WideResNet(nn.Module):
    """kekmodel's WideResNet with depth 10 (one block per group) and channels [8, 8, 16, 32]."""

    def __init__(self, num_classes, channels=(8, 8, 16, 32), drop_rate=0.0):
        super().__init__()
        self.conv1 = nn.Conv2d(3, channels[0], kernel_size=3, stride=1, padding=1, bias=False)
        self.block1 = BasicBlock(channels[0], channels[1], 1, drop_rate, activate_before_residual=True)
        self.block2 = BasicBlock(channels[1], channels[2], 2, drop_rate)
        self.block3 = BasicBlock(channels[2], channels[3], 2, drop_rate)
        self.bn1 = nn.BatchNorm2d(channels[3], momentum=0.001)
        self.relu = nn.LeakyReLU(negative_slope=0.1, inplace=True)
        self.fc = nn.Linear(channels[3], num_classes)
        self.channels = channels[3]
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="leaky_relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1.0)
                nn.init.constant_(m.bias, 0.0)
            elif isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                nn.init.constant_(m.bias, 0.0)

    def forward(self, x):
        out = self.conv1(x)
        out = self.block3(self.block2(self.block1(out)))
        out = self.relu(self.bn1(out))
        out = F.adaptive_avg_pool2d(out, 1).view(-1, self.channels)
        return self.fc(out)


def interleave(x, size):
    s = list(x.shape)
    return x.reshape([-1, size] + s[1:]).transpose(0, 1).reshape([-1] + s[1:])


def de_interleave(x, size):
    s = list(x.shape)
    return x.reshape([size, -1] + s[1:]).transpose(0, 1).reshape([-1] + s[1:])


class FixMatch(nn.Module):
    """forward(x, u_w, u_s) -> (logits_x, logits_u_w, logits_u_s): the three batches go through the WideResNet
    as one interleaved batch (shared BatchNorm statistics), as in the reference training loop."""

    def __init__(self):
        super().__init__()
        self.net = WideResNet(NUM_CLASSES)

    def forward(self, inputs_x, inputs_u_w, inputs_u_s):
        batch_size = inputs_x.shape[0]
        inputs = interleave(torch.cat((inputs_x, inputs_u_w, inputs_u_s)), 2 * MU + 1)
        logits = de_interleave(self.net(inputs), 2 * MU + 1)
        logits_x = logits[:batch_size]
        logits_u_w, logits_u_s = logits[batch_size:].chunk(2)
        return logits_x, logits_u_w, logits_u_s


def fixmatch_loss(outputs, targets_x) -> torch.Tensor:
    logits_x, logits_u_w, logits_u_s = outputs
    Lx = F.cross_entropy(logits_x, targets_x, reduction="mean")
    pseudo_label = torch.softmax(logits_u_w.detach() / T, dim=-1)
    max_probs, targets_u = torch.max(pseudo_label, dim=-1)
    mask = max_probs.ge(THRESHOLD).float()
    Lu = (F.cross_entropy(logits_u_s, targets_u, reduction="none") * mask).mean()
    return Lx + LAMBDA_U * Lu


def make_optimizer(params) -> torch.optim.Optimizer:
    """no_decay = ['bias', 'bn'] in the reference code: here the 1-D tensors (biases and BN affine)."""
    params = [p for p in params if p.requires_grad]
    grouped = [{"params": [p for p in params if p.ndim > 1], "weight_decay": 5e-4},
               {"params": [p for p in params if p.ndim <= 1], "weight_decay": 0.0}]
    return torch.optim.SGD(grouped, lr=0.03, momentum=0.9, nesterov=True)


def train_step(model: FixMatch, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    """The reference loop body: forward of the interleaved batch, Lx + lambda_u * Lu with pseudo-labels from
    the weak view (no gradient) masked by confidence, backward, step, then model.zero_grad()."""
    (inputs_x, inputs_u_w, inputs_u_s), targets_x = batch
    logits_x, logits_u_w, logits_u_s = model(inputs_x, inputs_u_w, inputs_u_s)
    Lx = F.cross_entropy(logits_x, targets_x, reduction="mean")
    pseudo_label = torch.softmax(logits_u_w.detach() / T, dim=-1)
    max_probs, targets_u = torch.max(pseudo_label, dim=-1)
    mask = max_probs.ge(THRESHOLD).float()
    Lu = (F.cross_entropy(logits_u_s, targets_u, reduction="none") * mask).mean()
    loss = Lx + LAMBDA_U * Lu
    loss.backward()
    optimizer.step()
    model.zero_grad()
    return loss.detach()


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x_l, y_l = make_images(gen, BATCH, balanced=True)
    u, _ = make_images(gen, BATCH * MU)  # their labels are never used
    inputs_x = normalize(weak_augment(x_l, gen))
    inputs_u_w = normalize(weak_augment(u, gen))
    inputs_u_s = normalize(torch.stack([rand_augment_mc(weak_augment(v.unsqueeze(0), gen)[0], gen) for v in u]))
    spec = {
        "model": FixMatch(),
        "batch": ((inputs_x, inputs_u_w, inputs_u_s), y_l),
        "loss_fn": fixmatch_loss,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
