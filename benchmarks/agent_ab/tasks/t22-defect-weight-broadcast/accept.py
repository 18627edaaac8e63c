"""Acceptance test for t22: python accept.py PROJECT_DIR

Builds the project's own pipeline (train.build / train.run) with accept.py's copy of the
shipped configuration (crack weight 12) and checks:
  1. per-sample weighting: on a training batch that holds cracks, the loss the trainer
     optimises (Trainer.batch_loss, model in eval mode) equals the weighted mean of the
     per-sample cross-entropies with the batch's own weights, either mean(w * ce) or
     sum(w * ce) / sum(w) (buggy: mean(w) * mean(ce), i.e. no per-sample weighting);
  2. after training, crack recall on the validation split >= 0.70 (buggy 0.57, fixed 0.76)
     and accuracy >= 0.92, with the model's plain argmax.
Oversampling, focal loss, threshold or logit-bias changes leave check 1 failing.
"""
import copy
import os
import sys

import torch
import torch.nn.functional as F

torch.set_num_threads(1)

CFG = {
    "seed": 0,
    "data": {"data_seed": 7, "train_size": 6000, "val_size": 3000, "num_features": 16,
             "class_names": ["ok", "scratch", "dent", "crack"], "class_freq": [0.62, 0.2, 0.13, 0.05],
             "batch_size": 64, "target": "defect_class"},
    "weighting": {"scheme": "manual", "class_weights": {"crack": 12.0}, "normalize": False},
    "model": {"hidden": [64, 64], "dropout": 0.1},
    "optim": {"lr": 0.002, "weight_decay": 0.0001},
    "train": {"epochs": 12, "grad_clip": None, "log_every": 2, "label_smoothing": 0.0},
    "run_dir": None,
    "log_level": "WARNING",
}
CRACK = 3


def check_batch_loss(build):
    model, trainer, train_loader, _ = build(copy.deepcopy(CFG), False)
    model.eval()
    for batch in train_loader:
        y = batch[1]
        if (y == CRACK).sum() >= 2:
            break
    with torch.no_grad():
        loss, _ = trainer.batch_loss(batch)
        logits = model(batch[0])
        ce = F.cross_entropy(logits, y, reduction="none")
        w = batch[2].reshape(-1).float() if len(batch) > 2 else torch.ones_like(ce)
        if len(w) != len(ce) or w.max() <= w.min():
            print(f"FAIL: the training batch does not carry one weight per sample "
                  f"(shape {tuple(batch[2].shape) if len(batch) > 2 else None})")
            return False
        refs = {"mean(w*ce)": (w * ce).mean().item(), "sum(w*ce)/sum(w)": ((w * ce).sum() / w.sum()).item()}
        unweighted = (w.mean() * ce.mean()).item()
    got = float(loss)
    print(f"batch loss {got:.5f}; weighted {refs}; mean(w)*mean(ce) {unweighted:.5f}")
    if any(abs(got - r) <= 1e-4 * max(abs(r), 1e-6) + 1e-6 for r in refs.values()):
        return True
    print("FAIL: the optimised loss is not the per-sample weighted cross-entropy")
    return False


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    import logging
    logging.disable(logging.INFO)
    from train import build, run

    ok = check_batch_loss(build)
    _, hist = run(copy.deepcopy(CFG), verbose=False)
    last = hist[-1]
    rec, acc = last["val_recall_crack"], last["val_acc"]
    print(f"after {len(hist)} epochs: val acc {acc:.4f}, crack recall {rec:.4f}")
    if rec < 0.70:
        print(f"FAIL: crack recall {rec:.3f} < 0.70 with crack weight 12")
        ok = False
    if acc < 0.92:
        print(f"FAIL: val accuracy {acc:.3f} < 0.92")
        ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
