import logging
from typing import Callable, Dict, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

from config import ModelConfig

logger = logging.getLogger(__name__)
MODELS: Dict[str, Callable[..., nn.Module]] = {}


def register(name: str):
    def deco(fn):
        MODELS[name] = fn
        return fn
    return deco


def build_activation(name: Optional[str]) -> nn.Module:
    if name is None or name == "identity":
        return nn.Identity()
    if name == "sigmoid":
        return nn.Sigmoid()
    if name in ("softmax", "softmax2d"):
        return nn.Softmax(dim=1)
    if name == "logsoftmax":
        return nn.LogSoftmax(dim=1)
    raise ValueError(f"unknown activation {name}")


class DecoderBlock(nn.Module):
    def __init__(self, in_ch: int, skip_ch: int, out_ch: int):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_ch + skip_ch, out_ch, 3, padding=1, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU(True),
            nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU(True))

    def forward(self, x, skip=None):
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        if skip is not None:
            x = torch.cat([x, skip], dim=1)
        return self.block(x)


class ResNetUnet(nn.Module):
    def __init__(self, encoder: str, in_channels: int, classes: int, decoder_channels, activation=None,
                 dropout: float = 0.0, pretrained: bool = True):
        super().__init__()
        backbone = getattr(torchvision.models, encoder)(weights="DEFAULT" if pretrained else None)
        if in_channels != 3:
            w = backbone.conv1.weight.detach()
            backbone.conv1 = nn.Conv2d(in_channels, 64, 7, 2, 3, bias=False)
            backbone.conv1.weight.data = torch.cat([w, w[:, :1].repeat(1, in_channels - 3, 1, 1)], 1)
        self.stem = nn.Sequential(backbone.conv1, backbone.bn1, backbone.relu)
        self.pool = backbone.maxpool
        self.layers = nn.ModuleList([backbone.layer1, backbone.layer2, backbone.layer3, backbone.layer4])
        enc_ch = [64, 64, 128, 256, 512] if encoder in ("resnet18", "resnet34") else [64, 256, 512, 1024, 2048]
        skips = enc_ch[:-1][::-1] + [0]
        ins = [enc_ch[-1]] + list(decoder_channels[:-1])
        self.decoder = nn.ModuleList(DecoderBlock(i, s, o) for i, s, o in zip(ins, skips, decoder_channels))
        self.dropout = nn.Dropout2d(dropout)
        self.head = nn.Conv2d(decoder_channels[-1], classes, 3, padding=1)
        self.activation = build_activation(activation)

    def forward(self, x):
        feats = [self.stem(x)]
        y = self.pool(feats[0])
        for layer in self.layers:
            y = layer(y)
            feats.append(y)
        y = feats.pop()
        for i, block in enumerate(self.decoder):
            y = block(y, feats[-(i + 1)] if i < len(feats) else None)
        return self.activation(self.head(self.dropout(y)))


@register("unet")
def unet(cfg: ModelConfig, in_channels: int, num_classes: int) -> nn.Module:
    return ResNetUnet(cfg.encoder, in_channels, num_classes, cfg.decoder_channels, activation=cfg.activation,
                      dropout=cfg.dropout, pretrained=cfg.encoder_weights is not None)


def build_model(cfg: ModelConfig, in_channels: int, num_classes: int) -> nn.Module:
    model = MODELS[cfg.arch](cfg, in_channels, num_classes)
    n = sum(p.numel() for p in model.parameters() if p.requires_grad)
    logger.info("built %s/%s with %.1fM trainable params", cfg.arch, cfg.encoder, n / 1e6)
    return model
