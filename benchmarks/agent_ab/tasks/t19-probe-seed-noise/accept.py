"""Acceptance test for t19 (healthy task): python accept.py PROJECT_DIR

There is no bug: the drop the user saw is seed-to-seed variation. Adding the export probe
builds one more nn.Linear in SegmentClassifier.__init__, which draws from the torch
generator, so "seed 13 with the probe" is a different random draw (initialisation of the
head, dropout masks, batch order) from "seed 13 without it". The test checks that the
project is left as shipped:
  1. every file of the original project is present and byte-identical (new files, e.g. a
     multi-seed script, are allowed);
  2. two reference runs (seed 13, probe off and on, accept.py's copy of the shipped
     configuration) reproduce the recorded final val accuracy (within one example of 300)
     and val loss (within 0.5%).
Whether the diagnosis is right is judged separately (task.yaml: judge_note).
"""
import copy
import filecmp
import os
import sys

import torch

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
ORIGINAL = os.path.join(HERE, "project")

CFG = {
    "seed": 13,
    "data": {"data_seed": 2024, "num_features": 20, "num_informative": 8, "num_classes": 3,
             "clusters_per_class": 3, "cluster_spread": 1.35, "label_noise": 0.08,
             "train_size": 400, "val_size": 300, "batch_size": 32},
    "model": {"hidden": [128, 64], "dropout": 0.2, "activation": "relu"},
    "optim": {"lr": 0.003, "weight_decay": 0.01, "betas": [0.9, 0.999]},
    "train": {"epochs": 40, "grad_clip": 1.0, "log_every": 10, "early_stop_patience": 0},
    "export": {"probe": True, "probe_dim": 16, "path": None},
    "run_dir": None,
    "log_level": "WARNING",
}
# probe -> (val acc, val loss) at seed 13, recorded with torch CPU, one thread
REFERENCE = {False: (0.8400, 1.1449319), True: (0.8133333, 1.3386174)}


def original_files():
    for root, dirs, files in os.walk(ORIGINAL):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if not name.endswith(".pyc"):
                yield os.path.relpath(os.path.join(root, name), ORIGINAL)


def main():
    project = os.path.abspath(sys.argv[1])
    changed = sorted(rel for rel in original_files()
                     if not os.path.isfile(os.path.join(project, rel))
                     or not filecmp.cmp(os.path.join(ORIGINAL, rel), os.path.join(project, rel), shallow=False))
    if changed:
        print(f"FAIL: project files changed or removed: {changed} (the task has no code bug)")
        return 1
    sys.path.insert(0, project)
    os.chdir(project)
    from train import run

    ok = True
    for probe, (ref_acc, ref_loss) in REFERENCE.items():
        cfg = copy.deepcopy(CFG)
        cfg["export"]["probe"] = probe
        _, hist = run(cfg, verbose=False)
        acc, loss = hist[-1]["val_acc"], hist[-1]["val_loss"]
        good = abs(acc - ref_acc) <= 1 / 300 + 1e-6 and abs(loss - ref_loss) <= 0.005 * ref_loss
        ok &= good
        print(f"seed 13 probe={probe}: val acc {acc:.4f} (ref {ref_acc:.4f}), val loss {loss:.4f} "
              f"(ref {ref_loss:.4f}) {'ok' if good else 'CHANGED'}")
    if not ok:
        print("FAIL: the project's training behaviour changed; the task has no code bug")
        return 1
    print("PASS (project unchanged; the diagnosis is judged separately)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
