"""Acceptance test for t01: python accept.py PROJECT_DIR

Passes only when every training example keeps its own label with length
bucketing switched on (the configuration the project ships with), and the
classifier then reaches a held-out accuracy of at least 0.95.
"""
import os
import sys

import numpy as np
import torch

torch.set_num_threads(1)

CFG = {
    "seed": 13,
    "data": {"vocab_size": 48, "num_classes": 4, "min_len": 6, "max_len": 48,
             "train_size": 2000, "val_size": 600, "sort_by_length": True},
    "model": {"embed_dim": 32, "hidden_dim": 64, "dropout": 0.1},
    "train": {"epochs": 3, "batch_size": 64, "lr": 0.003, "weight_decay": 0.0001,
              "log_every": 10 ** 9},
}


def majority_keyword(tokens, num_classes):
    t = np.asarray(tokens)
    counts = np.array([(t == k).sum() for k in range(1, num_classes + 1)])
    return int(counts.argmax())


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    from data import build_datasets
    from train import train

    train_ds, val_ds = build_datasets(CFG)
    for name, ds in (("train", train_ds), ("val", val_ds)):
        bad = 0
        for i in range(len(ds)):
            tokens, label = ds[i]
            if int(label) != majority_keyword(tokens.tolist(), CFG["data"]["num_classes"]):
                bad += 1
        print(f"{name}: {bad}/{len(ds)} examples whose label is not their majority keyword")
        if bad:
            print("FAIL: inputs and labels are misaligned with sort_by_length=true")
            return 1

    lengths = [len(train_ds[i][0]) for i in range(len(train_ds))]
    if any(a > b for a, b in zip(lengths, lengths[1:])):
        print("FAIL: the training set is no longer length-sorted: the fix must keep "
              "length bucketing (sort_by_length=true) working")
        return 1

    torch.manual_seed(0)
    _, history = train(CFG, verbose=False)
    val_acc = history[-1]["val_acc"]
    print(f"val accuracy after {CFG['train']['epochs']} epochs: {val_acc:.3f}")
    if not val_acc >= 0.95:
        print("FAIL: held-out accuracy below 0.95")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
