import torch
import torch.nn as nn

_model_entrypoints = {}


def register_model(fn):
    _model_entrypoints[fn.__name__] = fn
    return fn


class ConvBNAct(nn.Sequential):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__(
            nn.Conv2d(in_ch, out_ch, 3, stride, 1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.SiLU(inplace=True),
        )


class TinyNet(nn.Module):
    def __init__(self, num_classes=1000, widths=(32, 64, 128, 256), drop_rate=0.0):
        super().__init__()
        layers = []
        in_ch = 3
        for i, w in enumerate(widths):
            layers.append(ConvBNAct(in_ch, w, stride=1 if i == 0 else 2))
            in_ch = w
        self.features = nn.Sequential(*layers)
        self.num_features = in_ch
        self.head = nn.Sequential(
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(1),
            nn.Dropout(drop_rate),
            nn.Linear(in_ch, num_classes),
            nn.Softmax(dim=1),
        )

    def forward_features(self, x):
        return self.features(x)

    def forward(self, x):
        return self.head(self.forward_features(x))


@register_model
def tinynet_a(pretrained=False, **kwargs):
    return TinyNet(widths=(32, 64, 128, 256), **kwargs)


@register_model
def tinynet_b(pretrained=False, **kwargs):
    return TinyNet(widths=(48, 96, 192, 384), **kwargs)


def create_model(name, **kwargs):
    if name not in _model_entrypoints:
        raise RuntimeError(f"Unknown model ({name})")
    return _model_entrypoints[name](**kwargs)
