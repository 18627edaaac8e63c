import torch


def kl_divergence(mu, logvar):
    return -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)


def reconstruction_nll(probs, target_onehot, mask):
    token_nll = -(target_onehot * torch.log(probs)).sum(dim=-1)
    return (token_nll * mask).sum(dim=1)


class KLAnnealer:
    def __init__(self, start_epoch=0, end_epoch=20, max_beta=1.0):
        self.start, self.end, self.max_beta = start_epoch, end_epoch, max_beta

    def __call__(self, epoch):
        if epoch < self.start:
            return 0.0
        frac = min(1.0, (epoch - self.start) / max(1, self.end - self.start))
        return self.max_beta * frac


def vae_loss(probs, target_onehot, mask, mu, logvar, beta):
    recon = reconstruction_nll(probs, target_onehot, mask).mean()
    kl = kl_divergence(mu, logvar).mean()
    return recon + beta * kl, recon, kl


def token_accuracy(probs, target_ids, mask):
    correct = (probs.argmax(-1) == target_ids).float() * mask
    return (correct.sum() / mask.sum().clamp_min(1.0)).item()


def reconstruction_rate(probs, target_ids, mask):
    wrong = ((probs.argmax(-1) != target_ids).float() * mask).sum(dim=1)
    return (wrong == 0).float().mean().item()


def summarize(history):
    keys = history[0].keys()
    return {k: sum(h[k] for h in history) / len(history) for k in keys}


def format_metrics(prefix, metrics):
    return " ".join(f"{prefix}/{k}={v:.4f}" for k, v in metrics.items())


def gradient_norm(parameters):
    total = 0.0
    for p in parameters:
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5
