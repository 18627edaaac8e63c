import torch.nn as nn
import torch.nn.functional as F
from torchvision.models.segmentation import deeplabv3_resnet50


class SegModel(nn.Module):
    def __init__(self, num_classes=19, pretrained_backbone=True):
        super().__init__()
        weights = "IMAGENET1K_V1" if pretrained_backbone else None
        self.net = deeplabv3_resnet50(weights=None, weights_backbone=weights, num_classes=num_classes)

    def forward(self, x):
        out = self.net(x)["out"]
        return F.softmax(out, dim=1)
