import torch.nn as nn
import torchvision.models as tvm

from .heads import LinearClsHead

MODEL_REGISTRY = {}


def register(name):
    def deco(fn):
        MODEL_REGISTRY[name] = fn
        return fn
    return deco


class Classifier(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone = backbone
        self.head = head

    def forward(self, x):
        return self.head(self.backbone(x))


@register("resnet50")
def resnet50(cfg):
    net = tvm.resnet50(weights="IMAGENET1K_V2" if cfg.pretrained else None)
    backbone = nn.Sequential(*list(net.children())[:-2])
    return Classifier(backbone, LinearClsHead(2048, cfg.num_classes, cfg.head_dropout))


@register("mobilenet_v3")
def mobilenet_v3(cfg):
    net = tvm.mobilenet_v3_large(weights="IMAGENET1K_V1" if cfg.pretrained else None)
    return Classifier(net.features, LinearClsHead(960, cfg.num_classes, cfg.head_dropout))


def build_model(cfg):
    return MODEL_REGISTRY[cfg.arch](cfg)
