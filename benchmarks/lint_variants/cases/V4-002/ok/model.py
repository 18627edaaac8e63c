import torch
import torch.nn as nn
import torch.nn.functional as F


class SegHead(nn.Module):
    def __init__(self, in_ch=3, num_classes=21, width=64):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
        )
        self.cls = nn.Conv2d(width, num_classes, 1)
        self.aux = nn.Conv2d(width, num_classes, 1)

    def forward(self, inputs, gt_seg=None, mode="tensor"):
        feat = self.backbone(inputs)
        logits = self.cls(feat)
        if mode == "tensor":
            return logits
        aux_logits = self.aux(feat)
        return {
            "loss_ce": F.cross_entropy(logits, gt_seg, ignore_index=255),
            "loss_aux": 0.4 * F.cross_entropy(aux_logits, gt_seg, ignore_index=255),
        }
