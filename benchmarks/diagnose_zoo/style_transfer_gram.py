"""pytorch/examples fast_neural_style (Johnson et al. 2016 losses of Gatys et al. 2016): TransformerNet (reflection-padded convs, InstanceNorm2d(affine), ReLU, 5 residual blocks, nearest-upsample convs) trained on raw 0-255 images; a frozen VGG16-style feature net (relu1_2, relu2_2, relu3_3) on ImageNet-normalised /255 inputs; loss = 1e5 * MSE(relu2_2(y), relu2_2(x)) + 1e10 * sum MSE(gram(y), gram(style)), gram = F F^T/(c h w); Adam lr 1e-3."""

from __future__ import annotations

from collections import namedtuple

import torch
import torch.nn.functional as F
from torch import nn

IMG = 12
BATCH = 16
CONTENT_WEIGHT, STYLE_WEIGHT = 1e5, 1e10


# ----------------------------------------------------------------------------- data (0-255, like the example)
def make_content(gen: torch.Generator, n: int) -> torch.Tensor:
    """Content images in [0, 255]: a smooth colour gradient background with one or two coloured blobs."""
    yy, xx = torch.meshgrid(torch.linspace(0, 1, IMG), torch.linspace(0, 1, IMG), indexing="ij")
    a = torch.rand(n, 3, 1, 1, generator=gen)
    b = torch.rand(n, 3, 1, 1, generator=gen)
    img = a * (1 - yy) + b * yy
    for _ in range(2):
        cy, cx = torch.rand(n, 1, 1, 1, generator=gen), torch.rand(n, 1, 1, 1, generator=gen)
        rad = 0.15 + 0.2 * torch.rand(n, 1, 1, 1, generator=gen)
        col = torch.rand(n, 3, 1, 1, generator=gen)
        blob = (((yy - cy) ** 2 + (xx - cx) ** 2) < rad**2).float()
        img = img * (1 - blob) + col * blob
    img = img + 0.02 * torch.randn(n, 3, IMG, IMG, generator=gen)
    return (img.clamp(0, 1) * 255).round()


def make_style() -> torch.Tensor:
    """The style image in [0, 255] (fixed, like the example's style file): diagonal two-colour stripes with
    a checker texture."""
    yy, xx = torch.meshgrid(torch.arange(IMG).float(), torch.arange(IMG).float(), indexing="ij")
    stripes = (((yy + xx) // 3) % 2).view(1, 1, IMG, IMG)
    checker = (((yy // 2) + (xx // 2)) % 2).view(1, 1, IMG, IMG)
    c1 = torch.tensor([0.95, 0.75, 0.1]).view(1, 3, 1, 1)
    c2 = torch.tensor([0.1, 0.2, 0.6]).view(1, 3, 1, 1)
    img = stripes * c1 + (1 - stripes) * c2
    img = img * (0.8 + 0.2 * checker)
    return (img.clamp(0, 1) * 255).round()


# ----------------------------------------------------------------------------- transformer net
class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        return self.conv2d(self.reflection_pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        return out + residual


class UpsampleConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        if self.upsample:
            x = F.interpolate(x, mode="nearest", scale_factor=self.upsample)
        return self.conv2d(self.reflection_pad(x))


class TransformerNet(nn.Module):
    """Channels 32/64/128 of the example shrunk to 8/16/32; same layers, same order."""

    def __init__(self, c=(8, 16, 32)):
        super().__init__()
        self.conv1 = ConvLayer(3, c[0], kernel_size=9, stride=1)
        self.in1 = nn.InstanceNorm2d(c[0], affine=True)
        self.conv2 = ConvLayer(c[0], c[1], kernel_size=3, stride=2)
        self.in2 = nn.InstanceNorm2d(c[1], affine=True)
        self.conv3 = ConvLayer(c[1], c[2], kernel_size=3, stride=2)
        self.in3 = nn.InstanceNorm2d(c[2], affine=True)
        self.res1 = ResidualBlock(c[2])
        self.res2 = ResidualBlock(c[2])
        self.res3 = ResidualBlock(c[2])
        self.res4 = ResidualBlock(c[2])
        self.res5 = ResidualBlock(c[2])
        self.deconv1 = UpsampleConvLayer(c[2], c[1], kernel_size=3, stride=1, upsample=2)
        self.in4 = nn.InstanceNorm2d(c[1], affine=True)
        self.deconv2 = UpsampleConvLayer(c[1], c[0], kernel_size=3, stride=1, upsample=2)
        self.in5 = nn.InstanceNorm2d(c[0], affine=True)
        self.deconv3 = ConvLayer(c[0], 3, kernel_size=9, stride=1)
        self.relu = nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res5(self.res4(self.res3(self.res2(self.res1(y)))))
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        return self.deconv3(y)  # unbounded, on the 0-255 scale of its input


# ----------------------------------------------------------------------------- frozen loss network
class Vgg16(nn.Module):
    """The example's Vgg16 slices (conv-ReLU stacks with max-pools) at 1/8 width and three slices; its weights
    are fixed at construction (seeded, the stand-in for the pretrained ImageNet weights) and frozen."""

    def __init__(self, requires_grad=False):
        super().__init__()
        g = torch.Generator().manual_seed(1234)

        def conv(cin, cout):
            m = nn.Conv2d(cin, cout, 3, padding=1)
            with torch.no_grad():
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * (2.0 / (cin * 9)) ** 0.5)
                m.bias.zero_()
            return m

        self.slice1 = nn.Sequential(conv(3, 8), nn.ReLU(), conv(8, 8), nn.ReLU())
        self.slice2 = nn.Sequential(nn.MaxPool2d(2, 2), conv(8, 16), nn.ReLU(), conv(16, 16), nn.ReLU())
        self.slice3 = nn.Sequential(nn.MaxPool2d(2, 2), conv(16, 32), nn.ReLU(), conv(32, 32), nn.ReLU(),
                                    conv(32, 32), nn.ReLU())
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, X):
        h_relu1_2 = self.slice1(X)
        h_relu2_2 = self.slice2(h_relu1_2)
        h_relu3_3 = self.slice3(h_relu2_2)
        return namedtuple("VggOutputs", ["relu1_2", "relu2_2", "relu3_3"])(h_relu1_2, h_relu2_2, h_relu3_3)


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    return features.bmm(features_t) / (ch * h * w)


def normalize_batch(batch):
    """utils.normalize_batch (out of place here: the example divides its loader batch in place)."""
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch / 255.0
    return (batch - mean) / std


class PerceptualLoss(nn.Module):
    """content_weight * MSE(relu2_2) + style_weight * sum over slices of MSE(gram, gram of the style image).
    Holds the frozen VGG (eval mode) and the style Grams computed once, as the example does before training."""

    def __init__(self):
        super().__init__()
        self.vgg = Vgg16(requires_grad=False).eval()
        with torch.no_grad():
            features_style = self.vgg(normalize_batch(make_style()))
        self.gram_style = [gram_matrix(y) for y in features_style]

    def forward(self, y, x):
        n_batch = len(x)
        features_y = self.vgg(normalize_batch(y))
        features_x = self.vgg(normalize_batch(x))
        content_loss = CONTENT_WEIGHT * F.mse_loss(features_y.relu2_2, features_x.relu2_2)
        style_loss = 0.0
        for ft_y, gm_s in zip(features_y, self.gram_style):
            gm_y = gram_matrix(ft_y)
            style_loss += F.mse_loss(gm_y, gm_s.expand(n_batch, -1, -1))
        style_loss *= STYLE_WEIGHT
        return content_loss + style_loss


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x = make_content(gen, BATCH)
    spec = {
        "model": TransformerNet(),
        "batch": (x, x),  # raw 0-255 content images in, and the same images as the content target
        "loss_fn": PerceptualLoss(),
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
