import torch
import torch.nn as nn
import torchvision


class MultiTaskNet(nn.Module):
    """Shared ResNet trunk with a category head and a multi-label attribute head."""

    def __init__(self, num_categories, num_attributes, pretrained=True, dropout=0.3):
        super().__init__()
        weights = torchvision.models.ResNet50_Weights.DEFAULT if pretrained else None
        backbone = torchvision.models.resnet50(weights=weights)
        in_features = backbone.fc.in_features
        backbone.fc = nn.Identity()
        self.backbone = backbone
        self.category_head = nn.Sequential(
            nn.Dropout(dropout), nn.Linear(in_features, num_categories))
        self.attr_head = nn.Sequential(
            nn.Linear(in_features, 512), nn.BatchNorm1d(512), nn.ReLU(inplace=True),
            nn.Dropout(dropout), nn.Linear(512, num_attributes))

    def forward(self, images):
        feat = self.backbone(images)
        return {
            "category": self.category_head(feat),
            "attributes": self.attr_head(feat),
        }
