import timm
import torch
from easydict import EasyDict


def load_cfg(path):
    import yaml
    with open(path) as f:
        return EasyDict(yaml.safe_load(f))


def build_model(cfg):
    return timm.create_model(cfg.model.arch, pretrained=cfg.model.pretrained, drop_path_rate=cfg.model.drop_path)


def build_optimizer(cfg, model):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim <= 1 or name.endswith(".bias") else decay).append(p)
    groups = [{"params": decay, "weight_decay": cfg.optim.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.optim.lr, betas=(0.9, 0.999))


def freeze_backbone(model, n_trainable_blocks):
    for p in model.parameters():
        p.requires_grad = False
    for blk in model.blocks[-n_trainable_blocks:]:
        for p in blk.parameters():
            p.requires_grad = True
    for p in model.norm.parameters():
        p.requires_grad = True
