"""Acceptance test for t05: python accept.py PROJECT_DIR

1. Loss: the project's criterion (label smoothing 0.1) must equal the
   per-example mean of the smoothed cross-entropy on a fixed batch
   (F.cross_entropy(..., label_smoothing=0.1)).
2. Accumulation: one epoch of the project's Trainer.fit over 3 x accum_steps
   micro-batches, with plain SGD (no momentum) on a linear model, must leave
   exactly the parameters of the reference: each optimizer step uses the mean
   of its own accum_steps micro-batch gradients and nothing else.
3. Training with the shipped hyper-parameters (lr 0.05, momentum 0.9, micro
   batch 32, accum 4) must stay finite and reach val accuracy >= 0.70.
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

CFG = {
    "seed": 11,
    "data": {"num_features": 32, "num_classes": 10, "teacher_hidden": 64,
             "train_size": 4000, "val_size": 1000},
    "model": {"hidden": [128, 128], "dropout": 0.0},
    "optim": {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.0005},
    "train": {"epochs": 8, "micro_batch_size": 32, "accum_steps": 4, "label_smoothing": 0.1,
              "log_every": 0},
}


def check_loss(build_criterion):
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(32, 10, generator=g) * 3
    y = torch.randint(0, 10, (32,), generator=g)
    got = build_criterion(CFG)(logits, y).item()
    want = F.cross_entropy(logits, y, label_smoothing=0.1).item()
    print(f"criterion on a fixed batch: {got:.5f}; per-example mean smoothed CE: {want:.5f}")
    return abs(got - want) <= 1e-4 * max(1.0, abs(want))


def check_accumulation(Trainer, build_criterion):
    accum, micro, lr = 4, 8, 0.1
    g = torch.Generator().manual_seed(1)
    x = torch.randn(3 * accum * micro, 6, generator=g)
    y = torch.randint(0, 3, (len(x),), generator=g)
    loader = DataLoader(TensorDataset(x, y), batch_size=micro, shuffle=False)
    torch.manual_seed(2)
    model = nn.Linear(6, 3)
    ref = nn.Linear(6, 3)
    ref.load_state_dict(model.state_dict())
    trainer = Trainer(model, build_criterion(CFG), torch.optim.SGD(model.parameters(), lr=lr),
                      accum_steps=accum, log_every=0)
    trainer.fit(loader, loader, 1, verbose=False)

    batches = list(loader)
    for s in range(0, len(batches), accum):
        ref.zero_grad()
        for bx, by in batches[s:s + accum]:
            (F.cross_entropy(ref(bx), by, label_smoothing=0.1) / accum).backward()
        with torch.no_grad():
            for p in ref.parameters():
                p -= lr * p.grad
    err = max((a - b).abs().max().item() for a, b in zip(model.parameters(), ref.parameters()))
    print(f"3 accumulated SGD steps: max parameter difference from the reference {err:.2e}")
    return err <= 1e-5


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    from losses import build_criterion
    from train import run
    from trainer import Trainer

    if not check_loss(build_criterion):
        print("FAIL: the loss is not the per-example mean (reduction does not match the trainer)")
        return 1
    if not check_accumulation(Trainer, build_criterion):
        print("FAIL: optimizer steps do not use the mean gradient of their own micro-batches")
        return 1
    _, history = run(CFG, verbose=False)
    last = history[-1]
    print(f"training: {len(history)} epochs, last train loss {last['train_loss']:.4f}, "
          f"val acc {last['val_acc']:.3f}")
    if len(history) < CFG["train"]["epochs"] or not last["train_loss"] < 10:
        print("FAIL: training did not run to the end with a finite, sane loss")
        return 1
    if last["val_acc"] < 0.70:
        print("FAIL: val accuracy below 0.70")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
