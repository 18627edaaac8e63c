import timm
import torch.nn as nn


class LeafModel(nn.Module):
    def __init__(self, arch="tf_efficientnet_b3_ns", n_classes=5, pretrained=False, drop_rate=0.3):
        super().__init__()
        self.backbone = timm.create_model(arch, pretrained=pretrained, num_classes=0,
                                          drop_path_rate=0.2)
        self.head = nn.Sequential(
            nn.Dropout(drop_rate),
            nn.Linear(self.backbone.num_features, 512),
            nn.BatchNorm1d(512),
            nn.SiLU(),
            nn.Dropout(drop_rate),
            nn.Linear(512, n_classes),
        )

    def forward(self, x):
        return self.head(self.backbone(x))
