"""Acceptance test for t11: python accept.py PROJECT_DIR

Trains the project's pipeline with the shipped configuration (accept.py's own copy,
so config edits do not count) and scores the best model on the validation split and
on two fresh production batches drawn by the project's own simulator. The bug is fixed
when validation is an honest estimate of fresh-batch performance:
  * |val R^2 - mean fresh-batch R^2| <= 0.12 for seeds 7 and 8, and
  * mean fresh-batch R^2 >= 0.12 (the leaky pipeline gets about 0.08).
"""
import os
import sys

import torch

torch.set_num_threads(1)

CFG = {
    "seed": 7,
    "data": {"batch_seed": 101, "num_samples": 600, "num_channels": 4000, "active_channels": 8,
             "noise_std": 3.0, "val_fraction": 0.25},
    "features": {"top_k": 150, "standardize": True},
    "model": {"hidden": [], "dropout": 0.0},
    "optim": {"lr": 0.01, "weight_decay": 0.05},
    "train": {"epochs": 150, "batch_size": 64, "log_every": 0, "patience": 30},
    "run_dir": None,
}


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    import copy
    import logging
    logging.disable(logging.INFO)
    from evaluate import evaluate_batch
    from train import run

    ok = True
    fresh_all = []
    for seed in (7, 8):
        cfg = copy.deepcopy(CFG)
        cfg["seed"] = seed
        result, (model, pre) = run(cfg, verbose=False, save=False)
        fresh = [evaluate_batch(cfg, model, pre, b, 1500)["r2"] for b in (202, 303)]
        mean_fresh = sum(fresh) / len(fresh)
        fresh_all.append(mean_fresh)
        gap = result["val_r2"] - mean_fresh
        print(f"seed {seed}: val R^2 {result['val_r2']:.3f}, fresh batches R^2 "
              f"{fresh[0]:.3f} / {fresh[1]:.3f}, gap {gap:+.3f}")
        if abs(gap) > 0.12:
            print(f"FAIL: seed {seed}: validation R^2 is not an honest estimate of fresh-batch R^2")
            ok = False
    mean_all = sum(fresh_all) / len(fresh_all)
    if mean_all < 0.12:
        print(f"FAIL: fresh-batch R^2 {mean_all:.3f} < 0.12")
        ok = False
    if ok:
        print(f"PASS (fresh-batch R^2 {mean_all:.3f})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
