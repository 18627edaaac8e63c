import timm
import torch.nn as nn

MODEL_REGISTRY = {}


def register(name):
    def deco(fn):
        MODEL_REGISTRY[name] = fn
        return fn
    return deco


@register("effnet_b0")
def effnet_b0(num_classes, pretrained=True):
    return timm.create_model("efficientnet_b0", pretrained=pretrained, num_classes=num_classes)


@register("resnet50")
def resnet50(num_classes, pretrained=True):
    return timm.create_model("resnet50", pretrained=pretrained, num_classes=num_classes)


@register("mlp_head")
def mlp_head(num_classes, pretrained=True, in_dim=1280):
    return nn.Sequential(nn.Linear(in_dim, 512), nn.ReLU(), nn.Dropout(0.2), nn.Linear(512, num_classes))


def build_model(cfg):
    return MODEL_REGISTRY[cfg.model.name](cfg.data.num_classes, pretrained=cfg.model.pretrained)
