"""Acceptance test for t21 (healthy task: the code is correct; the March drop is a data shift).

Usage: python accept.py PROJECT_DIR   (exit 0 = project unchanged, 1 = changed)
The answer to this task is the diagnosis (judged separately, see task.yaml judge_note); the
project must be left as it was:
  1. every file of the original project (code, config.yaml, data/*.csv) is still present and
     byte-identical in PROJECT_DIR (new files, e.g. an inspection script, are allowed);
  2. training with the shipped configuration (into a temporary run_dir) still gives a held-out
     accuracy in [0.92, 0.96] (0.940 shipped) and evaluate_new on data/march_2026.csv an
     accuracy in [0.82, 0.87] (0.847 shipped).
"""
import filecmp
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ORIGINAL = os.path.join(HERE, "project")


def original_files():
    for root, dirs, files in os.walk(ORIGINAL):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "runs")]
        for name in files:
            if not name.endswith(".pyc"):
                yield os.path.relpath(os.path.join(root, name), ORIGINAL)


def main():
    torch.set_num_threads(1)
    project = os.path.abspath(sys.argv[1])
    changed = sorted(rel for rel in original_files()
                     if not os.path.isfile(os.path.join(project, rel))
                     or not filecmp.cmp(os.path.join(ORIGINAL, rel), os.path.join(project, rel), shallow=False))
    if changed:
        print(f"FAIL: project files changed or removed: {changed} (no code, config or data change is expected)")
        return 1
    os.chdir(project)
    sys.path.insert(0, project)
    import logging
    logging.disable(logging.INFO)
    from config import load_config
    from evaluate_new import evaluate_file
    from train import run

    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_config("config.yaml", [f"run_dir={tmp}"])
        _, hist = run(cfg, verbose=False)
        val = hist[-1]["val_acc"]
        march = evaluate_file("data/march_2026.csv", tmp, verbose=False)["acc"]
    print(f"held-out val acc {val:.4f}; march_2026 acc {march:.4f}")
    if not 0.92 <= val <= 0.96:
        print(f"FAIL: held-out accuracy {val:.3f} outside [0.92, 0.96]: behaviour changed")
        return 1
    if not 0.82 <= march <= 0.87:
        print(f"FAIL: March accuracy {march:.3f} outside [0.82, 0.87]: behaviour changed")
        return 1
    print("PASS: project unchanged (the diagnosis is judged separately)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
