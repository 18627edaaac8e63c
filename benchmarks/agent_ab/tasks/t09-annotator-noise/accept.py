"""Acceptance test for t09 (healthy task: the code is correct; the ceiling is label noise).

Usage: python accept.py PROJECT_DIR   (exit 0 = project unchanged in behaviour, 1 = changed)
The answer to this task is the diagnosis (judged separately, see task.yaml judge_note); the
patch must leave the project as it was:
  1. every file of the original project (this task's project/ folder) is still present and
     byte-identical in PROJECT_DIR (new files, e.g. an analysis script, are allowed);
  2. training through train.train with config.yaml (seeded, one thread) still ends with a
     validation accuracy in [0.80, 0.85] against the recorded labels (0.825 originally).
"""
import filecmp
import importlib
import os
import sys

import torch
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ORIGINAL = os.path.join(HERE, "project")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def original_files():
    for root, dirs, files in os.walk(ORIGINAL):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if not name.endswith(".pyc"):
                yield os.path.relpath(os.path.join(root, name), ORIGINAL)


def main():
    torch.set_num_threads(1)
    project = os.path.abspath(sys.argv[1])
    changed = [rel for rel in original_files()
               if not os.path.isfile(os.path.join(project, rel))
               or not filecmp.cmp(os.path.join(ORIGINAL, rel), os.path.join(project, rel), shallow=False)]
    if changed:
        fail(f"project files changed or removed: {sorted(changed)} (no code or data change is expected)")

    os.chdir(project)
    sys.path.insert(0, project)
    train_mod = importlib.import_module("train")
    with open("config.yaml") as fh:
        cfg = yaml.safe_load(fh)
    _, history = train_mod.train(cfg, verbose=False)
    acc = history[-1]["val_acc"]
    print(f"final val acc {acc:.3f}")
    if not 0.80 <= acc <= 0.85:
        fail(f"final val acc {acc:.3f} outside [0.80, 0.85]: behaviour changed")
    print("PASS: project unchanged; val accuracy at the label-noise ceiling as before")
    sys.exit(0)


if __name__ == "__main__":
    main()
