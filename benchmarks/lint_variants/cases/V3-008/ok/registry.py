import torch.nn as nn
import torch.nn.functional as F


class Registry:
    def __init__(self, name):
        self.name = name
        self._modules = {}

    def register_module(self, cls=None, name=None):
        def _register(c):
            self._modules[name or c.__name__] = c
            return c
        return _register(cls) if cls is not None else _register

    def build(self, cfg):
        cfg = dict(cfg)
        return self._modules[cfg.pop("type")](**cfg)


MODELS = Registry("models")


@MODELS.register_module()
class CrossEntropyLoss(nn.Module):
    def __init__(self, loss_weight=1.0, label_smooth_val=0.0):
        super().__init__()
        self.loss_weight = loss_weight
        self.label_smooth_val = label_smooth_val

    def forward(self, cls_score, label):
        return self.loss_weight * F.cross_entropy(cls_score, label,
                                                  label_smoothing=self.label_smooth_val)
