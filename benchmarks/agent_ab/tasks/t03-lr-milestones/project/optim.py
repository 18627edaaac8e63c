"""Optimizer and learning-rate schedule construction."""
import torch


def build_optimizer(model, cfg):
    o = cfg["optim"]
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") else decay).append(p)
    groups = [{"params": decay, "weight_decay": o["weight_decay"]},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.SGD(groups, lr=o["lr"], momentum=o["momentum"], nesterov=True)


def build_scheduler(optimizer, cfg):
    s = cfg["schedule"]
    return torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=s["milestones"],
                                                gamma=s["gamma"])
