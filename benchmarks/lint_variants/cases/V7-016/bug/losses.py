from dataclasses import dataclass

import torch


@dataclass
class LossWeights:
    recon: float = 1.0
    kl: float = 1.0
    prop: float = 1.0
    kl_anneal_start: int = 29
    kl_anneal_rate: float = 0.5
    kl_max: float = 1.0


def kl_weight(epoch: int, w: LossWeights) -> float:
    if epoch < w.kl_anneal_start:
        return 0.0
    return min(w.kl_max, w.kl * (1 - (1 - w.kl_anneal_rate) ** (epoch - w.kl_anneal_start + 1)))


def reconstruction_loss(recon_probs: torch.Tensor, x_onehot: torch.Tensor) -> torch.Tensor:
    log_p = torch.log(recon_probs)
    return -(x_onehot * log_p).sum(dim=-1).sum(dim=-1).mean()


def kl_divergence(mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    return (-0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)).mean()


def property_loss(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor = None) -> torch.Tensor:
    err = (pred - target) ** 2
    if mask is not None:
        err = err * mask
        return err.sum() / mask.sum().clamp_min(1)
    return err.mean()


def vae_loss(outputs, x_onehot, props, epoch: int, w: LossWeights):
    recon_probs, prop_pred, mu, logvar = outputs
    recon = reconstruction_loss(recon_probs, x_onehot)
    kl = kl_divergence(mu, logvar)
    prop = property_loss(prop_pred, props)
    beta = kl_weight(epoch, w)
    total = w.recon * recon + beta * kl + w.prop * prop
    return total, {"recon": recon.item(), "kl": kl.item(), "prop": prop.item(), "beta": beta}


@torch.no_grad()
def reconstruction_accuracy(recon_probs: torch.Tensor, x_onehot: torch.Tensor, pad_idx: int):
    pred = recon_probs.argmax(-1)
    target = x_onehot.argmax(-1)
    char_acc = (pred == target).float().mean().item()
    mol_acc = (pred == target).all(dim=1).float().mean().item()
    return char_acc, mol_acc
