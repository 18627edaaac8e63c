"""torchvision's FCN (a dilated ResNet-style backbone, FCNHead conv-BN-ReLU-Dropout(0.1)-1x1, bilinear upsampling to the input) with ENet-style class weights in CrossEntropyLoss(ignore_index=255), SGD 0.02/0.9/1e-4 as in torchvision's segmentation reference."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._data import blob_scenes, normalise_images

NUM_CLASSES = 5
IMAGE_SIZE = 16
COUNT = 8
VOID = 255


def conv_bn_relu(inp: int, out: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(inp, out, 3, stride, dilation, dilation=dilation, bias=False),
                         nn.BatchNorm2d(out), nn.ReLU(inplace=True))


class FCNHead(nn.Sequential):
    def __init__(self, in_channels: int, channels: int):
        inter = in_channels // 4
        super().__init__(nn.Conv2d(in_channels, inter, 3, padding=1, bias=False), nn.BatchNorm2d(inter), nn.ReLU(),
                         nn.Dropout(0.1), nn.Conv2d(inter, channels, 1))


class FCN(nn.Module):
    def __init__(self, num_classes: int, width: int = 16):
        super().__init__()
        # output stride 4, then dilation instead of more striding (replace_stride_with_dilation)
        self.backbone = nn.Sequential(conv_bn_relu(3, width, 2), conv_bn_relu(width, 2 * width, 2),
                                      conv_bn_relu(2 * width, 2 * width, dilation=2), conv_bn_relu(2 * width, 2 * width, dilation=2))
        self.classifier = FCNHead(2 * width, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size = x.shape[-2:]
        out = self.classifier(self.backbone(x))
        return F.interpolate(out, size=size, mode="bilinear", align_corners=False)


def class_weights(masks: torch.Tensor, classes: int) -> torch.Tensor:
    """ENet's weighting w_c = 1 / ln(1.02 + p_c) from the labelled pixels' class frequencies."""
    labelled = masks[masks != VOID]
    freq = torch.bincount(labelled, minlength=classes).float() / labelled.numel()
    return 1.0 / torch.log(1.02 + freq)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.02, momentum=0.9, weight_decay=1e-4)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, masks = blob_scenes(gen, COUNT, NUM_CLASSES, IMAGE_SIZE)
    masks[:, 0, :] = masks[:, -1, :] = masks[:, :, 0] = masks[:, :, -1] = VOID
    criterion = nn.CrossEntropyLoss(weight=class_weights(masks, NUM_CLASSES), ignore_index=VOID)

    def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
        image, target = batch
        output = model(image)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    spec = {
        "model": FCN(NUM_CLASSES),
        "batch": (normalise_images(images), masks),
        "loss_fn": criterion,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "ignore_index": VOID,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
