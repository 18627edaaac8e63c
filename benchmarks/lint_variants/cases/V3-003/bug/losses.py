from functools import partial

import torch
import torch.nn.functional as F


def build_loss(name, **kwargs):
    if name == "ce":
        return partial(F.cross_entropy, label_smoothing=kwargs.get("label_smoothing", 0.0))
    if name == "bce":
        pos_weight = kwargs.get("pos_weight")
        if pos_weight is not None:
            pos_weight = torch.as_tensor(pos_weight, dtype=torch.float32)
        return partial(F.binary_cross_entropy_with_logits, pos_weight=pos_weight)
    raise ValueError(f"unknown loss: {name}")


class MultiTaskLoss:
    def __init__(self, task_losses, weights):
        self.task_losses = task_losses
        self.weights = weights

    def __call__(self, outputs, targets):
        parts = {k: fn(outputs[k], targets[k]) for k, fn in self.task_losses.items()}
        total = sum(self.weights[k] * v for k, v in parts.items())
        return total, {k: v.detach().item() for k, v in parts.items()}
