import torch
import torch.nn as nn


class Activation(nn.Module):
    def __init__(self, name):
        super().__init__()
        if name is None or name == "identity":
            self.act = nn.Identity()
        elif name == "sigmoid":
            self.act = nn.Sigmoid()
        elif name == "softmax2d":
            self.act = nn.Softmax(dim=1)
        else:
            raise ValueError(f"unknown activation {name}")

    def forward(self, x):
        return self.act(x)


class SegmentationHead(nn.Sequential):
    def __init__(self, in_channels, out_channels, activation=None):
        conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        super().__init__(conv, Activation(activation))


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class Unet(nn.Module):
    def __init__(self, in_channels=3, classes=1, widths=(32, 64, 128, 256), activation=None):
        super().__init__()
        self.downs = nn.ModuleList()
        c = in_channels
        for w in widths:
            self.downs.append(conv_block(c, w))
            c = w
        self.ups = nn.ModuleList()
        self.up_convs = nn.ModuleList()
        for w in reversed(widths[:-1]):
            self.ups.append(nn.ConvTranspose2d(c, w, 2, stride=2))
            self.up_convs.append(conv_block(2 * w, w))
            c = w
        self.segmentation_head = SegmentationHead(c, classes, activation=activation)

    def forward(self, x):
        skips = []
        for i, down in enumerate(self.downs):
            x = down(x)
            if i < len(self.downs) - 1:
                skips.append(x)
                x = nn.functional.max_pool2d(x, 2)
        for up, conv, skip in zip(self.ups, self.up_convs, reversed(skips)):
            x = conv(torch.cat([up(x), skip], dim=1))
        return self.segmentation_head(x)


_REGISTRY = {"unet": Unet}


def create_model(arch, **kwargs):
    return _REGISTRY[arch.lower()](**kwargs)
