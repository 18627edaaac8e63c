"""Regression metrics."""
import torch


@torch.no_grad()
def regression_metrics(pred, target):
    err = pred - target
    mse = err.pow(2).mean().item()
    mae = err.abs().mean().item()
    var = (target - target.mean()).pow(2).mean().item()
    return {"mse": mse, "rmse": mse ** 0.5, "mae": mae, "r2": 1.0 - mse / max(var, 1e-12)}


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    preds, targets = [], []
    for x, y in loader:
        preds.append(model(x))
        targets.append(y)
    model.train()
    return regression_metrics(torch.cat(preds), torch.cat(targets))


def format_metrics(metrics, prefix=""):
    return "  ".join(f"{prefix}{k} {v:.4f}" for k, v in metrics.items())
