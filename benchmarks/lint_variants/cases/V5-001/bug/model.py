import timm
import torch.nn as nn

from config import CFG


class CustomEfficientNet(nn.Module):
    def __init__(self, model_name=CFG.model_name, pretrained=False):
        super().__init__()
        self.model = timm.create_model(model_name, pretrained=pretrained)
        n_features = self.model.classifier.in_features
        self.model.classifier = nn.Identity()
        self.head = nn.Sequential(
            nn.Dropout(0.3),
            nn.Linear(n_features, CFG.hidden),
            nn.SiLU(),
            nn.Linear(CFG.hidden, CFG.target_size),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        feats = self.model(x)
        return self.head(feats)
