"""Acceptance test for t17: python accept.py PROJECT_DIR

Trains the project with this file's copy of the shipped configuration (output in
a temporary folder), then runs the project's evaluate():
1. on the val split, evaluate() must reproduce the best val accuracy that
   training reported (same checkpoint, same data: within 1e-6);
2. on the test split, accuracy must be >= 0.90 (reference fix: see task.yaml).
"""
import copy
import os
import shutil
import sys
import tempfile

import torch

torch.set_num_threads(1)

CFG = {
    "seed": 0,
    "run_name": "accept",
    "output_dir": None,
    "data": {"train_size": 3000, "val_size": 600, "test_size": 1000, "max_len": 24,
             "vocab_size": 1500, "min_freq": 1, "lowercase": True},
    "model": {"embed_dim": 48, "hidden": 64, "dropout": 0.1},
    "optim": {"lr": 3e-3, "weight_decay": 1e-4},
    "train": {"epochs": 6, "batch_size": 64, "patience": 3},
    "log_level": "WARNING",
}
MIN_TEST_ACC = 0.90


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    from evaluate import evaluate
    from train import train

    tmp = tempfile.mkdtemp(prefix="t17-accept-")
    try:
        cfg = copy.deepcopy(CFG)
        cfg["output_dir"] = tmp
        records = train(cfg, verbose=False)
        best_val = max(r["val_acc"] for r in records)
        val = evaluate(copy.deepcopy(cfg), "val", verbose=False)["acc"]
        test = evaluate(copy.deepcopy(cfg), "test", verbose=False)["acc"]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"best val acc in training {best_val:.4f}; evaluate(): val {val:.4f}, test {test:.4f}")
    if abs(val - best_val) > 1e-6:
        print("FAIL: evaluate() does not reproduce the training run's val accuracy from its checkpoint")
        return 1
    if test < MIN_TEST_ACC:
        print(f"FAIL: test accuracy below {MIN_TEST_ACC}")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
