"""Acceptance test for t14: python accept.py PROJECT_DIR

Resuming must be exact. With accept.py's copy of the config (max_steps 400, checkpoints
every 100 steps), the project's train.run is used three ways:
  A. an uninterrupted run to step 400;
  B. a run preempted after step 250 (train.stop_after), then
  C. a new process-like run with resume=true from the latest checkpoint (step 200) to 400.
Pass when every parameter of C equals A within 1e-5 (max abs difference) and the
checkpoint of step 200 holds the weights after 200 updates (equal to a run stopped at 200).
"""
import copy
import os
import sys
import tempfile

import torch

torch.set_num_threads(1)

RAW = {
    "seed": 13,
    "data": {"vocab_size": 600, "num_classes": 6, "seq_len": 20, "train_size": 4000,
             "val_size": 1000},
    "model": {"embed_dim": 48, "hidden": 96},
    "optim": {"lr": 0.002, "weight_decay": 0.01, "warmup_steps": 50},
    "train": {"max_steps": 400, "batch_size": 32, "save_every": 100, "eval_every": 0,
              "log_every": 0},
    "resume": False,
}


def max_diff(a, b):
    return max((a[k].float() - b[k].float()).abs().max().item() for k in a)


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    import logging
    logging.disable(logging.WARNING)
    from config import from_dict
    from train import run

    with tempfile.TemporaryDirectory() as tmp:
        raw = copy.deepcopy(RAW)
        raw["run_dir"] = os.path.join(tmp, "a")
        full = run(from_dict(raw), verbose=False)
        ref = {k: v.detach().clone() for k, v in full.model.state_dict().items()}

        raw = copy.deepcopy(RAW)
        raw["run_dir"] = os.path.join(tmp, "b")
        ckpt_path = os.path.join(tmp, "a", "checkpoints", "step_000200.pt")
        saved = torch.load(ckpt_path, weights_only=False)["model"]

        raw = copy.deepcopy(RAW)
        raw["run_dir"] = os.path.join(tmp, "c")
        stopped = run(from_dict(raw), verbose=False, stop_after=250)
        raw["resume"] = True
        resumed = run(from_dict(raw), verbose=False)
        got = resumed.model.state_dict()

        # the weights after exactly 200 updates
        raw200 = copy.deepcopy(RAW)
        raw200["run_dir"] = os.path.join(tmp, "d")
        raw200["train"]["save_every"] = 0
        t200 = run(from_dict(raw200), verbose=False, stop_after=200)
        w200 = t200.model.state_dict()

    ok = True
    d_ckpt = max(max_diff(w200, {k.removeprefix("module."): v for k, v in saved.items()}), 0.0) \
        if set(k.removeprefix("module.") for k in saved) == set(w200) else float("inf")
    print(f"checkpoint step_000200 vs weights after 200 updates: max |diff| {d_ckpt:.2e}")
    if not d_ckpt <= 1e-6:
        print("FAIL: the step-200 checkpoint does not hold the weights after 200 updates")
        ok = False
    per_module = {}
    for k in ref:
        top = k.split(".")[0]
        per_module[top] = max(per_module.get(top, 0.0), (ref[k] - got[k]).abs().max().item())
    print("resumed (250 -> ckpt 200 -> 400) vs uninterrupted, max |diff| per module: "
          + ", ".join(f"{k} {v:.2e}" for k, v in per_module.items()))
    print(f"loss just after resume {resumed.loss_history[0]:.4f}; uninterrupted run at that "
          f"step {full.loss_history[200]:.4f}")
    if max(per_module.values()) > 1e-5:
        print("FAIL: the resumed run does not continue the interrupted one exactly")
        ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
