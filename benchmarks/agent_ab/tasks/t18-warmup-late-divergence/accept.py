"""Acceptance test for t18: python accept.py PROJECT_DIR

1. Schedule: the project's build_optimizer/build_scheduler, built from this file's
   own copy of the shipped configuration (SGD lr 0.02, 200 warmup steps from 0.1x,
   then constant; and the same with the cosine main schedule), stepped 3000 times:
   the lr must rise from 0.1x to 1x over the warmup, reach the base lr at the end of
   the warmup and never exceed it afterwards (cosine: end at min_lr_ratio x base).
2. Training: the project's run() with the shipped configuration must finish all
   3000 steps with a finite loss and a final val MSE <= 0.055.
Config edits (lower lr, no warmup, clipping) are not seen: this test uses its own.
"""
import copy
import os
import sys
import warnings

import torch

torch.set_num_threads(1)
warnings.filterwarnings("ignore")

CFG = {
    "seed": 0,
    "data": {"num_features": 24, "teacher_hidden": 48, "train_size": 6000, "val_size": 1000,
             "noise_std": 0.05, "outlier_frac": 0.01, "outlier_scale": 8.0},
    "model": {"width": 96, "depth": 3, "dropout": 0.0},
    "optim": {"name": "sgd", "lr": 0.02, "momentum": 0.9, "weight_decay": 0.0001,
              "betas": [0.9, 0.999], "grad_clip": None},
    "sched": {"name": "constant", "warmup_steps": 200, "warmup_start_factor": 0.1, "min_lr_ratio": 0.1},
    "train": {"steps": 3000, "batch_size": 64, "eval_every": 500, "log_every": 0},
    "log_level": "WARNING",
}
MAX_VAL_MSE = 0.055


def lr_trace(build_optimizer, build_scheduler, cfg):
    model = torch.nn.Linear(3, 1)
    opt = build_optimizer(model, cfg)
    sched = build_scheduler(opt, cfg)
    lrs = []
    for _ in range(cfg["train"]["steps"]):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        if sched is not None:
            sched.step()
    return lrs


def check_schedule(build_optimizer, build_scheduler):
    ok = True
    base = CFG["optim"]["lr"]
    for name in ("constant", "cosine"):
        cfg = copy.deepcopy(CFG)
        cfg["sched"]["name"] = name
        lrs = lr_trace(build_optimizer, build_scheduler, cfg)
        w = cfg["sched"]["warmup_steps"]
        peak, at_w, last = max(lrs), lrs[w], lrs[-1]
        print(f"{name}: lr[0] {lrs[0]:.4g}  lr[{w}] {at_w:.4g}  max {peak:.4g} (step {lrs.index(peak)})  "
              f"lr[-1] {last:.4g}  (base {base:g})")
        good = abs(lrs[0] - 0.1 * base) <= 0.02 * base
        good &= all(b >= a - 1e-12 for a, b in zip(lrs[:w], lrs[1:w + 1]))
        good &= abs(at_w - base) <= 0.02 * base and peak <= base * 1.001
        if name == "constant":
            good &= abs(last - base) <= 0.01 * base
        else:
            good &= abs(last - 0.1 * base) <= 0.02 * base
        if not good:
            print(f"FAIL: the {name} schedule does not warm up to the base lr and stay at or below it")
        ok &= good
    return ok


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    from schedules import build_optimizer, build_scheduler
    from train import run

    if not check_schedule(build_optimizer, build_scheduler):
        return 1
    _, records, state = run(copy.deepcopy(CFG), verbose=False)
    last = records[-1] if records else {}
    mse = last.get("val_mse", float("nan"))
    print(f"training: stopped at step {state['step']}, final val mse {mse:.4f}")
    if state["step"] < CFG["train"]["steps"] or not mse == mse:
        print("FAIL: training did not finish with a finite loss")
        return 1
    if mse > MAX_VAL_MSE:
        print(f"FAIL: val mse above {MAX_VAL_MSE}")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
