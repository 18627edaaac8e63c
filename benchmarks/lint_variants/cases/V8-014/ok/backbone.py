import torch.nn as nn


def conv_block(in_channels, out_channels):
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, 3, padding=1),
        nn.BatchNorm2d(out_channels),
        nn.ReLU(),
        nn.MaxPool2d(2),
    )


class Conv4(nn.Module):
    """The 4-block conv encoder of Snell et al. (64 filters, 1600-d output on 84x84 inputs)."""

    def __init__(self, x_dim=3, hid_dim=64, z_dim=64):
        super().__init__()
        self.encoder = nn.Sequential(
            conv_block(x_dim, hid_dim),
            conv_block(hid_dim, hid_dim),
            conv_block(hid_dim, hid_dim),
            conv_block(hid_dim, z_dim),
        )
        self.out_dim = z_dim * 5 * 5

    def forward(self, x):
        return self.encoder(x).flatten(1)


class ResNet12Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.LeakyReLU(0.1),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.LeakyReLU(0.1),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
        )
        self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(nn.functional.leaky_relu(self.body(x) + self.skip(x), 0.1))


class ResNet12(nn.Module):
    def __init__(self, channels=(64, 160, 320, 640)):
        super().__init__()
        layers, cin = [], 3
        for c in channels:
            layers.append(ResNet12Block(cin, c))
            cin = c
        self.layers = nn.Sequential(*layers)
        self.out_dim = channels[-1]

    def forward(self, x):
        return nn.functional.adaptive_avg_pool2d(self.layers(x), 1).flatten(1)


BACKBONES = {"conv4": Conv4, "resnet12": ResNet12}
