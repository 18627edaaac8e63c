"""Acceptance test for t04 (healthy task): python accept.py PROJECT_DIR

There is no bug to fix: the drop the user saw is seed-to-seed variation. The
test checks that the project still behaves exactly as shipped: the final
validation accuracy and loss of four reference runs (GELU seeds 0, 1, 2 and
ReLU seed 0, configuration below) must match the values recorded on the
shipped project (accuracy within one validation example, loss within 0.5%).
A patch that changes the model, the initialisation, the data or the
training loop moves these numbers and fails. Whether the diagnosis is right
is judged separately (task.yaml: judge_note).
"""
import copy
import os
import sys

import torch

torch.set_num_threads(1)

CFG = {
    "seed": 0,
    "seeds": [0, 1, 2, 3, 4],
    "data": {"data_seed": 1234, "num_features": 16, "num_classes": 4, "clusters_per_class": 4,
             "cluster_spread": 1.2, "label_noise": 0.1, "train_size": 400, "val_size": 400},
    "model": {"hidden": [64, 64], "activation": "gelu", "dropout": 0.1},
    "train": {"epochs": 60, "batch_size": 32, "lr": 0.002, "weight_decay": 0.0001},
}
# (activation, seed) -> (val acc, val loss), recorded with torch 2.13 CPU, one thread
REFERENCE = {
    ("gelu", 0): (0.795, 1.3084958),
    ("gelu", 1): (0.8175, 1.2891989),
    ("gelu", 2): (0.79, 1.3090947),
    ("relu", 0): (0.8125, 1.1846612),
}


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    from train import train

    ok = True
    for (act, seed), (ref_acc, ref_loss) in REFERENCE.items():
        cfg = copy.deepcopy(CFG)
        cfg["model"]["activation"] = act
        _, m = train(cfg, seed)
        good = abs(m["acc"] - ref_acc) <= 1 / 400 + 1e-9 and abs(m["loss"] - ref_loss) <= 0.005 * ref_loss
        ok &= good
        print(f"{act} seed {seed}: val acc {m['acc']:.4f} (ref {ref_acc:.4f}), "
              f"val loss {m['loss']:.4f} (ref {ref_loss:.4f}) {'ok' if good else 'CHANGED'}")
    if not ok:
        print("FAIL: the project's training behaviour changed; the task has no code bug")
        return 1
    print("PASS (behaviour unchanged; the diagnosis is judged separately)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
