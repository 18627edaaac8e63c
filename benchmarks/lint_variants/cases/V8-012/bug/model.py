import torch
import torch.nn as nn
import torchvision
from torchvision.ops import box_iou, roi_align

from losses import encode_boxes, keypoint_rcnn_loss, sigmoid_focal_loss, smooth_l1_box_loss


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        r = torchvision.models.resnet50(weights=torchvision.models.ResNet50_Weights.DEFAULT)
        self.body = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool, r.layer1, r.layer2, r.layer3)
        self.out_channels = 1024
        self.stride = 16

    def forward(self, x):
        return self.body(x)


class KeypointHead(nn.Module):
    def __init__(self, in_ch, num_keypoints=17):
        super().__init__()
        layers = []
        for _ in range(4):
            layers += [nn.Conv2d(in_ch, 256, 3, padding=1), nn.ReLU(inplace=True)]
            in_ch = 256
        self.convs = nn.Sequential(*layers)
        self.deconv = nn.ConvTranspose2d(256, num_keypoints, 4, stride=2, padding=1)

    def forward(self, x):
        return nn.functional.interpolate(self.deconv(self.convs(x)), scale_factor=2, mode="bilinear",
                                         align_corners=False)


class RoIHeads(nn.Module):
    def __init__(self, in_ch, stride, num_classes=1, num_keypoints=17, fg_iou=0.5):
        super().__init__()
        self.stride = stride
        self.fg_iou = fg_iou
        self.num_classes = num_classes
        self.box_head = nn.Sequential(nn.Flatten(), nn.Linear(in_ch * 7 * 7, 1024), nn.ReLU(inplace=True),
                                      nn.Linear(1024, 1024), nn.ReLU(inplace=True))
        self.cls_score = nn.Linear(1024, num_classes)
        self.bbox_pred = nn.Linear(1024, 4)
        self.keypoint_head = KeypointHead(in_ch, num_keypoints)

    def pool(self, feats, rois, size):
        return roi_align(feats, rois, output_size=size, spatial_scale=1.0 / self.stride, sampling_ratio=2)

    def forward(self, feats, proposals, targets=None):
        x = self.box_head(self.pool(feats, proposals, 7))
        cls_logits = self.cls_score(x)
        cls_scores = cls_logits.sigmoid()
        deltas = self.bbox_pred(x)
        if not self.training:
            return {"scores": cls_scores, "deltas": deltas,
                    "keypoint_logits": self.keypoint_head(self.pool(feats, proposals, 14))}
        losses = {"loss_cls": 0.0, "loss_box": 0.0, "loss_kp": 0.0}
        start = 0
        for i, t in enumerate(targets):
            props = proposals[proposals[:, 0] == i][:, 1:]
            n = props.size(0)
            iou, match = box_iou(props, t["boxes"]).max(dim=1)
            fg = iou >= self.fg_iou
            labels = torch.zeros(n, self.num_classes, device=props.device)
            labels[fg, 0] = 1.0
            sl = slice(start, start + n)
            losses["loss_cls"] = losses["loss_cls"] + sigmoid_focal_loss(cls_scores[sl], labels) / max(1, int(fg.sum()))
            if fg.any():
                fg_idx = fg.nonzero().flatten() + start
                reg_t = encode_boxes(t["boxes"][match[fg]], props[fg])
                losses["loss_box"] = losses["loss_box"] + smooth_l1_box_loss(deltas[fg_idx], reg_t)
                rois = torch.cat([torch.full_like(props[fg][:, :1], i), props[fg]], dim=1)
                kp_logits = self.keypoint_head(self.pool(feats, rois, 14))
                losses["loss_kp"] = losses["loss_kp"] + keypoint_rcnn_loss(kp_logits, props[fg], t["keypoints"][match[fg]])
            start += n
        return {k: v / len(targets) for k, v in losses.items()}


class KeypointRCNNLite(nn.Module):
    def __init__(self, num_keypoints=17):
        super().__init__()
        self.backbone = Backbone()
        self.roi_heads = RoIHeads(self.backbone.out_channels, self.backbone.stride, num_keypoints=num_keypoints)

    def forward(self, images, proposals, targets=None):
        return self.roi_heads(self.backbone(images), proposals, targets)
