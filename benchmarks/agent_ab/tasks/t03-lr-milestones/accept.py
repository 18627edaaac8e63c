"""Acceptance test for t03: python accept.py PROJECT_DIR

Trains with the shipped schedule (SGD lr 0.2, step decay x0.1 at epochs 80
and 105 of 120) and records the learning rate used by every optimizer step
(a global optimizer step hook, independent of the project's logging).
Passes only when
  1. every step of epoch e ran at lr = 0.2 * 0.1 ** (number of milestones <= e),
     i.e. the decay happens at the configured epochs, and
  2. the final validation accuracy is >= 0.985.
"""
import math
import os
import sys

import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

torch.set_num_threads(1)

CFG = {
    "seed": 3,
    "data": {"num_classes": 3, "points_per_class": 1000, "noise": 0.25, "turns": 1.5,
             "val_fraction": 0.2},
    "model": {"hidden": [128, 128], "activation": "relu"},
    "optim": {"lr": 0.2, "momentum": 0.9, "weight_decay": 0.0005, "batch_size": 400},
    "schedule": {"epochs": 120, "milestones": [80, 105], "gamma": 0.1},
}
N_TRAIN = 3000 - int(3000 * 0.2)


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    from train import train

    lrs = []
    register_optimizer_step_pre_hook(lambda opt, args, kwargs: lrs.append(opt.param_groups[0]["lr"]))
    _, history = train(CFG, verbose=False)

    steps_per_epoch = math.ceil(N_TRAIN / CFG["optim"]["batch_size"])
    s = CFG["schedule"]
    want_steps = s["epochs"] * steps_per_epoch
    if len(lrs) != want_steps:
        print(f"FAIL: {len(lrs)} optimizer steps, expected {want_steps}")
        return 1
    wrong = []
    for i, lr in enumerate(lrs):
        epoch = i // steps_per_epoch
        want = CFG["optim"]["lr"] * s["gamma"] ** sum(m <= epoch for m in s["milestones"])
        if not math.isclose(lr, want, rel_tol=1e-6):
            wrong.append((epoch, i, lr, want))
    if wrong:
        e, i, lr, want = wrong[0]
        print(f"{len(wrong)}/{len(lrs)} steps ran at the wrong lr; first: epoch {e} step {i} "
              f"lr {lr:.3g}, expected {want:.3g}")
        print("FAIL: the learning rate does not follow the configured epoch milestones")
        return 1
    print("learning rate follows the epoch milestones")
    val_acc = history[-1]["val_acc"]
    print(f"final val accuracy {val_acc:.3f}")
    if val_acc < 0.985:
        print("FAIL: final validation accuracy below 0.985")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
