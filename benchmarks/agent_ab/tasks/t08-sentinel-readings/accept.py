"""Acceptance test for t08: the training pipeline must keep failed probe reads out of training.

Usage: python accept.py PROJECT_DIR   (exit 0 = fixed, 1 = not fixed)
Writes a fresh logger export (new seed, same logger conventions: failed reads written as -9999,
dropped fields as empty cells) and a fresh checked hold-out, points a copy of the project's
config.yaml at them, and trains through the project's train.train(cfg) (seeded, one thread):
  1. no training step's loss exceeds 50 (a batch holding a -9999 reading gives ~1e6 with MSE,
     ~150-500 with Huber; clean batches stay below 1): clipping, a lower learning rate or a robust
     loss leave the corrupt rows in training and fail here;
  2. the final hold-out RMSE is at most 0.08 kW (clean pipeline ~0.05; with clipping ~0.1).
A project that only cleans its shipped CSV fails: the fresh export has its own failed reads.
"""
import copy
import importlib
import os
import sys
import tempfile

import numpy as np
import torch
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_data  # noqa: E402  (the task's logger simulator, not the project's code)

MAX_STEP_LOSS = 50.0
MAX_RMSE = 0.08


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    torch.set_num_threads(1)
    project = os.path.abspath(sys.argv[1])
    os.chdir(project)
    sys.path.insert(0, project)
    train_mod = importlib.import_module("train")
    with open(os.path.join(project, "config.yaml")) as fh:
        cfg = yaml.safe_load(fh)

    with tempfile.TemporaryDirectory() as tmp:
        data, blanks, _ = make_data.simulate(8760, seed=21)
        make_data.write_csv(os.path.join(tmp, "export.csv"), data, blanks)
        _, _, clean = make_data.simulate(24 * 90, seed=22)
        make_data.write_csv(os.path.join(tmp, "holdout.csv"), clean, np.zeros_like(clean[:, 1:], dtype=bool))
        n_bad = int((data[:, 1:] == make_data.MISSING).any(axis=1).sum())
        cfg = copy.deepcopy(cfg)
        cfg["data"]["train_path"] = os.path.join(tmp, "export.csv")
        cfg["data"]["holdout_path"] = os.path.join(tmp, "holdout.csv")
        torch.manual_seed(0)
        _, history = train_mod.train(cfg, verbose=False)

    step_loss = np.asarray(history["step_loss"], dtype=float)
    rmse = float(history["val_rmse"][-1])
    print(f"fresh export: {n_bad} hours with a failed read; max step loss {np.nanmax(step_loss):.4g}, "
          f"final hold-out RMSE {rmse:.4f} kW")
    if not np.isfinite(step_loss).all():
        fail("non-finite training loss")
    if step_loss.max() > MAX_STEP_LOSS:
        k = int((step_loss > MAX_STEP_LOSS).sum())
        fail(f"{k} training steps with loss > {MAX_STEP_LOSS} (max {step_loss.max():.4g}): "
             "corrupt readings still reach the loss")
    if not rmse <= MAX_RMSE:
        fail(f"final hold-out RMSE {rmse:.4f} kW > {MAX_RMSE}")
    print("PASS: failed reads are kept out of training; hold-out RMSE within band")
    sys.exit(0)


if __name__ == "__main__":
    main()
