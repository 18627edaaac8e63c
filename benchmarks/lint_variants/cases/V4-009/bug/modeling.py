import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.utils.data import DataLoader


class CenterNetLite(nn.Module):
    def __init__(self, num_classes=80):
        super().__init__()
        backbone = torchvision.models.resnet18(weights="IMAGENET1K_V1")
        self.body = nn.Sequential(*list(backbone.children())[:-2])
        self.heatmap = nn.Conv2d(512, num_classes, 1)
        self.wh = nn.Conv2d(512, 2, 1)

    def forward(self, data):
        images, heat_gt, wh_gt, mask = data
        feat = self.body(images.cuda())
        heat = self.heatmap(feat)
        wh = self.wh(feat)
        loss_heat = F.binary_cross_entropy_with_logits(heat, heat_gt.cuda())
        m = mask.cuda().unsqueeze(1)
        loss_wh = (F.l1_loss(wh, wh_gt.cuda(), reduction="none") * m).sum() / m.sum().clamp(min=1)
        return {"loss_heat": loss_heat, "loss_wh": 0.1 * loss_wh}


def build_model(cfg):
    return CenterNetLite(num_classes=getattr(cfg, "num_classes", 80))


def build_detection_train_loader(cfg):
    dataset = torch.load(getattr(cfg, "train_cache", "train_targets.pt"))
    return DataLoader(dataset, batch_size=getattr(cfg, "ims_per_batch", 16), shuffle=True,
                      num_workers=4, drop_last=True)
