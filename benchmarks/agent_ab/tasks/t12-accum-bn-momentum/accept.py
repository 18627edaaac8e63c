"""Acceptance test for t12: python accept.py PROJECT_DIR

Trains the project's own pipeline (run(cfg)) with accept.py's copy of the shipped
hyper-parameters, effective batch 128, split into micro-batches by gradient accumulation:
  1. accum_steps=16 (micro-batch 8): val loss finite and val acc >= 0.70
     (accum_steps=1 reaches ~0.75);
  2. accum_steps=8 (micro-batch 16): val acc >= 0.72;
  3. the model still normalises with BatchNorm (>= 4 BatchNorm layers), and its running
     variance in the input layer is within 8% (median over channels) of the training
     data's variance.
"""
import copy
import os
import sys

import torch

torch.set_num_threads(1)

RAW = {
    "seed": 3,
    "data": {"num_features": 48, "num_classes": 8, "train_size": 6000, "val_size": 2000,
             "label_noise": 0.02},
    "model": {"hidden": [256, 256, 128], "dropout": 0.1, "bn_momentum": 0.1},
    "optim": {"name": "sgd", "lr": 0.1, "momentum": 0.9, "weight_decay": 0.0005, "nesterov": True},
    "train": {"epochs": 6, "batch_size": 128, "accum_steps": 1, "grad_clip": 5.0, "log_every": 0},
    "run_dir": None,
}


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    import logging
    logging.disable(logging.INFO)
    from config import from_dict
    from data import make_split
    from train import run

    ok = True
    for accum, need in ((16, 0.70), (8, 0.72)):
        raw = copy.deepcopy(RAW)
        raw["train"]["accum_steps"] = accum
        cfg = from_dict(raw)
        model, hist = run(cfg, verbose=False)
        last = hist[-1]
        print(f"accum_steps={accum}: {len(hist)} epochs, train loss {last['train_loss']:.3f}, "
              f"val loss {last['val_loss']:.3f}, val acc {last['val_acc']:.3f}")
        if not (last["val_loss"] == last["val_loss"] and last["val_loss"] < 10):
            print(f"FAIL: accum_steps={accum}: validation loss is not finite")
            ok = False
        elif last["val_acc"] < need:
            print(f"FAIL: accum_steps={accum}: val acc {last['val_acc']:.3f} < {need}")
            ok = False
        bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
        if len(bns) < 4:
            print("FAIL: the model no longer uses BatchNorm (the fix must keep the architecture)")
            return 1
        first = bns[0]
        x = make_split(cfg, cfg.data.train_size, seed=cfg.seed * 100 + 1).tensors[0]
        if first.running_var.shape[0] == x.shape[1]:
            rel = ((first.running_var - x.var(0)).abs() / x.var(0)).median().item()
            print(f"accum_steps={accum}: input BatchNorm running_var median relative error {rel:.3f}")
            if not rel <= 0.08:
                print(f"FAIL: accum_steps={accum}: BatchNorm running statistics do not track the data")
                ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
