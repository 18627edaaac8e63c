from collections import namedtuple

import torch
import torch.nn as nn
from torchvision import models

VggOutputs = namedtuple("VggOutputs", ["relu1_2", "relu2_2", "relu3_3", "relu4_3"])
IMAGENET_MEAN = torch.tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
IMAGENET_STD = torch.tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)


class Vgg16(nn.Module):
    def __init__(self):
        super().__init__()
        features = models.vgg16(weights=models.VGG16_Weights.DEFAULT).features
        self.slice1 = features[:4]
        self.slice2 = features[4:9]
        self.slice3 = features[9:16]
        self.slice4 = features[16:23]
        for p in self.parameters():
            p.requires_grad_(False)
        self.eval()

    def forward(self, x):
        h1 = self.slice1(x)
        h2 = self.slice2(h1)
        h3 = self.slice3(h2)
        h4 = self.slice4(h3)
        return VggOutputs(h1, h2, h3, h4)


def gram_matrix(y):
    b, ch, h, w = y.size()
    features = y.view(b, ch, w * h)
    return features.bmm(features.transpose(1, 2)) / (ch * h * w)


def normalize_batch(batch):
    batch = batch.div(255.0)
    return (batch - IMAGENET_MEAN.to(batch.device)) / IMAGENET_STD.to(batch.device)


class PerceptualLoss(nn.Module):
    def __init__(self, style_image, content_weight=1e5, style_weight=1e10):
        super().__init__()
        self.vgg = Vgg16()
        self.content_weight = content_weight
        self.style_weight = style_weight
        with torch.no_grad():
            feats = self.vgg(normalize_batch(style_image))
        self.register_buffer("dummy", torch.zeros(1))
        self.gram_style = [gram_matrix(f) for f in feats]

    def forward(self, y, x):
        self.gram_style = [g.to(y.device) for g in self.gram_style]
        feat_y = self.vgg(normalize_batch(y))
        feat_x = self.vgg(normalize_batch(x))
        content = self.content_weight * nn.functional.mse_loss(feat_y.relu2_2, feat_x.relu2_2)
        style = 0.0
        for ft_y, gm_s in zip(feat_y, self.gram_style):
            gm_y = gram_matrix(ft_y)
            style = style + nn.functional.mse_loss(gm_y, gm_s[: y.size(0)].expand_as(gm_y))
        return content, self.style_weight * style
