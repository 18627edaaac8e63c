"""Evaluation in physical units (full precision)."""
import torch


@torch.no_grad()
def evaluate(model, loader, scaler):
    model.eval()
    preds, targets = [], []
    for x, y in loader:
        preds.append(scaler.inverse(model(x)))
        targets.append(y)
    model.train()
    p, t = torch.cat(preds), torch.cat(targets)
    err = p - t
    return {"rmse_k": err.pow(2).mean().sqrt().item(),
            "mae_k": err.abs().mean().item(),
            "max_err_k": err.abs().max().item(),
            "within_0.25k": (err.abs() <= 0.25).float().mean().item()}


def format_metrics(m):
    return "  ".join(f"{k} {v:.4f}" for k, v in m.items())
