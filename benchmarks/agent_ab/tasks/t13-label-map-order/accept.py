"""Acceptance test for t13: python accept.py PROJECT_DIR

Training and evaluation run as separate processes, as users run them. accept.py trains
once (train.run, its own copy of the shipped config, PYTHONHASHSEED=1) and then evaluates
the saved checkpoint (evaluate.evaluate_run on the test export) in three fresh processes
with PYTHONHASHSEED=1, 2 and 4. Pass when every evaluation gives macro-F1 >= 0.90 and every
category F1 >= 0.80 (the model itself reaches ~0.95 on validation).
"""
import json
import os
import subprocess
import sys
import tempfile

CFG = {
    "seed": 5,
    "data": {"categories": ["billing", "outage", "login", "feature_request", "refund"],
             "class_share": {"billing": 0.30, "outage": 0.20, "login": 0.25,
                             "feature_request": 0.05, "refund": 0.20},
             "vocab_words": 400, "doc_length": 24, "train_size": 3000, "val_size": 800,
             "test_size": 1000, "topic_strength": 0.22},
    "model": {"embed_dim": 32, "dropout": 0.1},
    "optim": {"lr": 0.01, "weight_decay": 0.0001},
    "train": {"epochs": 5, "batch_size": 64, "log_every": 0},
}

PRELUDE = ("import sys, os, json, logging; sys.path.insert(0, {proj!r}); os.chdir({proj!r}); "
           "import torch; torch.set_num_threads(1); logging.disable(logging.INFO); ")


def py(proj, code, hashseed):
    env = dict(os.environ, PYTHONHASHSEED=str(hashseed), OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", PRELUDE.format(proj=proj) + code], env=env,
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        raise SystemExit(1)
    return proc.stdout


def main():
    proj = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as run_dir:
        cfg = dict(CFG, run_dir=run_dir)
        out = py(proj, f"from train import run; r, _ = run({cfg!r}, verbose=False); "
                       "print(json.dumps(r))", 1)
        train_res = json.loads(out.strip().splitlines()[-1])
        print(f"training (PYTHONHASHSEED=1): val macro-F1 {train_res['val_macro_f1']:.3f}")
        ok = True
        for h in (1, 2, 4):
            out = py(proj, f"from evaluate import evaluate_run; "
                           f"print(json.dumps(evaluate_run({run_dir!r}, 'test')))", h)
            res = json.loads(out.strip().splitlines()[-1])
            worst = min(res["per_class"], key=lambda r: r["f1"])
            print(f"evaluate (PYTHONHASHSEED={h}): macro-F1 {res['macro_f1']:.3f}, "
                  f"worst category {worst['class']} F1 {worst['f1']:.3f}")
            if res["macro_f1"] < 0.90 or worst["f1"] < 0.80:
                print(f"FAIL: evaluation in a fresh process (PYTHONHASHSEED={h}) disagrees "
                      "with the trained model")
                ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
