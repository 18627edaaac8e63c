import math
import random

import numpy as np
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader


def init_seeds(seed=0):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def xywh2xyxy(x):
    y = x.clone()
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


def box_iou(box1, box2, eps=1e-7):
    (a1, a2), (b1, b2) = box1.unsqueeze(1).chunk(2, 2), box2.unsqueeze(0).chunk(2, 2)
    inter = (torch.min(a2, b2) - torch.max(a1, b1)).clamp(0).prod(2)
    return inter / ((a2 - a1).prod(2) + (b2 - b1).prod(2) - inter + eps)


def non_max_suppression(prediction, conf_thres=0.25, iou_thres=0.45, max_det=300):
    output = [torch.zeros((0, 6), device=prediction.device)] * prediction.shape[0]
    for xi, x in enumerate(prediction):
        x = x[x[:, 4] > conf_thres]
        if not x.shape[0]:
            continue
        x[:, 5:] *= x[:, 4:5]
        box = xywh2xyxy(x[:, :4])
        conf, j = x[:, 5:].max(1, keepdim=True)
        x = torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres]
        c = x[:, 5:6] * 7680
        i = torchvision.ops.nms(x[:, :4] + c, x[:, 4], iou_thres)[:max_det]
        output[xi] = x[i]
    return output


def ap_per_class(tp, conf, pred_cls, target_cls, nc, eps=1e-16):
    i = np.argsort(-conf)
    tp, conf, pred_cls = tp[i], conf[i], pred_cls[i]
    ap, p, r = np.zeros((nc, tp.shape[1])), np.zeros(nc), np.zeros(nc)
    for ci in range(nc):
        i = pred_cls == ci
        n_l = (target_cls == ci).sum()
        if i.sum() == 0 or n_l == 0:
            continue
        fpc = (1 - tp[i]).cumsum(0)
        tpc = tp[i].cumsum(0)
        recall = tpc / (n_l + eps)
        precision = tpc / (tpc + fpc)
        r[ci], p[ci] = recall[-1, 0], precision[-1, 0]
        for j in range(tp.shape[1]):
            mrec = np.concatenate(([0.0], recall[:, j], [1.0]))
            mpre = np.flip(np.maximum.accumulate(np.flip(np.concatenate(([1.0], precision[:, j], [0.0])))))
            x = np.linspace(0, 1, 101)
            ap[ci, j] = np.trapz(np.interp(x, mrec, mpre), x)
    return p, r, ap


class ComputeLoss:
    def __init__(self, model, box_gain=0.05, obj_gain=1.0, cls_gain=0.5):
        self.det = model.detect
        self.bce = nn.BCEWithLogitsLoss()
        self.gains = (box_gain, obj_gain, cls_gain)

    def __call__(self, raw, targets):
        device = targets.device
        lbox, lobj, lcls = (torch.zeros(1, device=device) for _ in range(3))
        for i, pi in enumerate(raw):
            tobj = torch.zeros(pi.shape[:4], device=device)
            lobj += self.bce(pi[..., 4], tobj)
            if targets.shape[0]:
                lcls += self.bce(pi[..., 5:].mean((1, 2, 3)), torch.zeros_like(pi[..., 5:].mean((1, 2, 3))))
        bs = raw[0].shape[0]
        lbox, lobj, lcls = lbox * self.gains[0], lobj * self.gains[1], lcls * self.gains[2]
        return (lbox + lobj + lcls) * bs, torch.cat((lbox, lobj, lcls)).detach()


def create_dataloader(path, imgsz, batch_size, augment=False, shuffle=False, workers=4):
    from torchvision.datasets import CocoDetection

    dataset = CocoDetection(root=path, annFile=f"{path}/annotations.json")
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, num_workers=workers, pin_memory=True)
    return loader, dataset
