"""Acceptance test for t15: python accept.py PROJECT_DIR

1. The optimizer must receive the configured hyper-parameters: for two optimizer sections
   (the shipped one and a variant), the project's build_optimizer gives param groups with
   exactly that lr (``learning_rate``), betas, eps and weight_decay.
2. Training with accept.py's copy of the shipped config (run(cfg)) must reach a best
   val loss <= 0.40 and a best val acc >= 0.85 (reference fix: 0.367 / 0.875; the shipped
   project: 0.475 / 0.826; either fix alone is worse than the shipped project).
"""
import copy
import os
import sys

import torch

torch.set_num_threads(1)

CFG = {
    "seed": 0,
    "data": {"num_samples": 8000, "val_fraction": 0.25, "num_features": 32, "num_segments": 6},
    "model": {"hidden": [128, 128], "dropout": 0.0},
    "optim": {"name": "adamw", "learning_rate": 0.002, "betas": [0.9, 0.999], "eps": 1.0e-8,
              "weight_decay": 0.1},
    "train": {"epochs": 10, "batch_size": 64, "log_every": 0},
    "run_dir": None,
}
VARIANT = {"name": "adamw", "learning_rate": 0.0123, "betas": [0.8, 0.99], "eps": 1.0e-6,
           "weight_decay": 0.02}


def check_hparams(build_optimizer):
    ok = True
    for ocfg in (CFG["optim"], VARIANT):
        opt = build_optimizer(torch.nn.Linear(3, 2), copy.deepcopy(ocfg))
        g = opt.param_groups[0]
        got = {"lr": g["lr"], "betas": tuple(g["betas"]), "eps": g["eps"],
               "weight_decay": g["weight_decay"]}
        want = {"lr": ocfg["learning_rate"], "betas": tuple(ocfg["betas"]), "eps": ocfg["eps"],
                "weight_decay": ocfg["weight_decay"]}
        print(f"configured {want}\n  optimizer {got}")
        for k in want:
            if k == "betas":
                same = all(abs(a - b) < 1e-12 for a, b in zip(got[k], want[k]))
            else:
                same = abs(got[k] - want[k]) <= 1e-12 * max(1.0, abs(want[k]))
            if not same:
                print(f"FAIL: optimizer {k} is {got[k]}, the config says {want[k]}")
                ok = False
    return ok


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    import logging
    logging.disable(logging.INFO)
    from optim import build_optimizer
    from train import run

    ok = check_hparams(build_optimizer)
    _, hist = run(copy.deepcopy(CFG), verbose=False)
    best_loss = min(h["val_loss"] for h in hist)
    best_acc = max(h["val_acc"] for h in hist)
    print(f"training: {len(hist)} epochs, best val loss {best_loss:.4f}, best val acc {best_acc:.4f}")
    if not (best_loss <= 0.40 and best_acc >= 0.85):
        print("FAIL: training does not reach val loss <= 0.40 and val acc >= 0.85")
        ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
