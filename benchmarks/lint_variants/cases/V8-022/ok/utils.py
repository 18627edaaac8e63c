import logging
import random

import numpy as np
import torch

from dataset import SEG_CLASSES


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def worker_init_fn(worker_id):
    seed = torch.initial_seed() % 2 ** 32
    np.random.seed(seed + worker_id)
    random.seed(seed + worker_id)


def get_logger(path):
    logger = logging.getLogger("partseg")
    logger.setLevel(logging.INFO)
    fh = logging.FileHandler(path)
    fh.setFormatter(logging.Formatter("%(asctime)s - %(message)s"))
    logger.addHandler(fh)
    logger.addHandler(logging.StreamHandler())
    return logger


def shape_ious(pred_log_probs, seg, cls_names):
    """Instance mIoU per shape, restricting predictions to the parts of its category."""
    ious = []
    pred = pred_log_probs.cpu()
    seg = seg.cpu()
    for i, name in enumerate(cls_names):
        parts = SEG_CLASSES[name]
        p = pred[i][:, parts].argmax(-1) + parts[0]
        part_iou = []
        for part in parts:
            inter = ((p == part) & (seg[i] == part)).sum().item()
            union = ((p == part) | (seg[i] == part)).sum().item()
            part_iou.append(1.0 if union == 0 else inter / union)
        ious.append(float(np.mean(part_iou)))
    return ious
