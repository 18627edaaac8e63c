import logging
import os

import torch


def get_logger(log_dir):
    os.makedirs(log_dir, exist_ok=True)
    logger = logging.getLogger("pointnet")
    logger.setLevel(logging.INFO)
    handler = logging.FileHandler(os.path.join(log_dir, "train.log"))
    handler.setFormatter(logging.Formatter("%(asctime)s - %(message)s"))
    logger.addHandler(handler)
    logger.addHandler(logging.StreamHandler())
    return logger


def update_lr(scheduler, epoch, logger, min_lr=1e-5):
    scheduler.step()
    for group in scheduler.optimizer.param_groups:
        group["lr"] = max(group["lr"], min_lr)
    logger.info("Epoch %d lr: %.6f", epoch, scheduler.optimizer.param_groups[0]["lr"])


def bn_momentum_adjust(model, momentum):
    for m in model.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            m.momentum = momentum
