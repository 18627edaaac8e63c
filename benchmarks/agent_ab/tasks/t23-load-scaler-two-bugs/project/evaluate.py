"""Validation in kWh: python evaluate.py RUN_DIR (or called from train.py after each epoch)."""
from __future__ import annotations

import json
import os
import sys
from typing import Dict

import numpy as np
import torch

from metrics import peak_error, regression_report


@torch.no_grad()
def predict_z(model, loader) -> (np.ndarray, np.ndarray, np.ndarray):
    model.eval()
    zs, zt, ys = [], [], []
    for x, z, y in loader:
        zs.append(model(x).numpy())
        zt.append(z.numpy())
        ys.append(y.numpy())
    model.train()
    return np.concatenate(zs), np.concatenate(zt), np.concatenate(ys)


def evaluate(model, loader, target_scaler) -> Dict[str, float]:
    z_pred, z_true, y_true = predict_z(model, loader)
    out = {"val_loss": float(((z_pred - z_true) ** 2).mean())}
    rep = regression_report(z_pred, y_true)
    out.update({f"val_{k}": v for k, v in rep.items()})
    out["val_peak_mae"] = peak_error(z_pred, y_true)
    return out


def main(run_dir: str) -> None:
    from config import load_config
    from data import build_data
    from model import build_model
    from scaling import TargetScaler

    with open(os.path.join(run_dir, "config.json")) as fh:
        cfg = load_config(None, [])
        cfg.update(json.load(fh))
    _, val_dl, _, _ = build_data(cfg)
    with open(os.path.join(run_dir, "target_scaler.json")) as fh:
        ys = TargetScaler.from_json(fh.read())
    model = build_model(cfg)
    model.load_state_dict(torch.load(os.path.join(run_dir, "model.pt")))
    print(json.dumps(evaluate(model, val_dl, ys), indent=2))


if __name__ == "__main__":
    main(sys.argv[1])
