import torch
import torch.nn as nn
import torch.nn.functional as F

from registry import MODELS


@MODELS.register_module()
class LinearClsHead(nn.Module):
    def __init__(self, num_classes, in_channels, loss=dict(type="CrossEntropyLoss"), topk=(1, 5)):
        super().__init__()
        self.num_classes = num_classes
        self.fc = nn.Linear(in_channels, num_classes)
        self.loss_module = MODELS.build(loss)
        self.topk = topk

    def pre_logits(self, feats):
        return feats[-1]

    def forward(self, feats):
        return self.fc(self.pre_logits(feats))

    def get_scores(self, feats):
        cls_score = self(feats)
        return F.softmax(cls_score, dim=1)

    def loss(self, feats, labels):
        cls_score = self(feats)
        return {"loss": self.loss_module(cls_score, labels)}

    def predict(self, feats):
        pred_scores = self.get_scores(feats)
        return pred_scores, pred_scores.argmax(dim=1)


@MODELS.register_module()
class ImageClassifier(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        import torchvision
        self.backbone = getattr(torchvision.models, backbone["type"])(num_classes=1)
        self.backbone.fc = nn.Identity()
        self.head = MODELS.build(head)

    def extract_feat(self, inputs):
        return (torch.flatten(self.backbone(inputs), 1),)

    def forward(self, inputs, labels=None, mode="tensor"):
        feats = self.extract_feat(inputs)
        if mode == "loss":
            return self.head.loss(feats, labels)
        if mode == "predict":
            return self.head.predict(feats)
        return self.head(feats)
