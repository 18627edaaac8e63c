"""Training objective."""
from torch import nn


def build_criterion(cfg) -> nn.Module:
    """Cross-entropy with a little label smoothing (helps calibration on-device)."""
    return nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
