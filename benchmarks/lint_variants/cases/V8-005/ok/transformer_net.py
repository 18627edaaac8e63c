import torch
import torch.nn as nn


class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        self.pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        return self.conv(self.pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, 3, 1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, 3, 1)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        out = self.relu(self.in1(self.conv1(x)))
        return self.in2(self.conv2(out)) + x


class UpsampleConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.conv = ConvLayer(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        if self.upsample:
            x = nn.functional.interpolate(x, mode="nearest", scale_factor=self.upsample)
        return self.conv(x)


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()
        self.down = nn.Sequential(
            ConvLayer(3, 32, 9, 1), nn.InstanceNorm2d(32, affine=True), nn.ReLU(),
            ConvLayer(32, 64, 3, 2), nn.InstanceNorm2d(64, affine=True), nn.ReLU(),
            ConvLayer(64, 128, 3, 2), nn.InstanceNorm2d(128, affine=True), nn.ReLU(),
        )
        self.res = nn.Sequential(*[ResidualBlock(128) for _ in range(5)])
        self.up = nn.Sequential(
            UpsampleConvLayer(128, 64, 3, 1, upsample=2), nn.InstanceNorm2d(64, affine=True), nn.ReLU(),
            UpsampleConvLayer(64, 32, 3, 1, upsample=2), nn.InstanceNorm2d(32, affine=True), nn.ReLU(),
            ConvLayer(32, 3, 9, 1),
        )

    def forward(self, x):
        return self.up(self.res(self.down(x)))
