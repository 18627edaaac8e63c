"""Acceptance test for t06: the dropout written in the YAML config must reach the model.

Usage: python accept.py PROJECT_DIR   (exit 0 = fixed, 1 = not fixed)
Checks, through the project's own entry point train.setup(argv):
  1. the shipped config.yaml gives nn.Dropout(p) with p equal to its model.dropout;
  2. a copy of that config with model.dropout = 0.45 gives p = 0.45 (no hard-coded value);
  3. the --dropout flag still overrides the file when it is given;
  4. optim.weight_decay from the file reaches the optimizer.
"""
import importlib
import os
import sys
import tempfile

import torch
import yaml


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def dropout_ps(model):
    return sorted({round(m.p, 6) for m in model.modules() if isinstance(m, torch.nn.Dropout)})


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    project = os.path.abspath(sys.argv[1])
    os.chdir(project)
    sys.path.insert(0, project)
    train = importlib.import_module("train")

    cfg_path = os.path.join(project, "config.yaml")
    with open(cfg_path) as fh:
        raw = yaml.safe_load(fh)
    want = float(raw["model"]["dropout"])
    if abs(want - 0.3) > 1e-9:
        fail(f"config.yaml model.dropout was changed to {want}; the user's setting is 0.3")

    _, model, opt, *_ = train.setup(["--config", cfg_path])
    ps = dropout_ps(model)
    if ps != [want]:
        fail(f"config.yaml says dropout {want}, model has Dropout p={ps}")
    wd = {g["weight_decay"] for g in opt.param_groups}
    if wd != {float(raw["optim"]["weight_decay"])}:
        fail(f"config.yaml says weight_decay {raw['optim']['weight_decay']}, optimizer has {wd}")

    with tempfile.TemporaryDirectory() as tmp:
        raw2 = dict(raw)
        raw2["model"] = dict(raw["model"], dropout=0.45)
        alt = os.path.join(tmp, "alt.yaml")
        with open(alt, "w") as fh:
            yaml.safe_dump(raw2, fh)
        _, model, *_ = train.setup(["--config", alt])
        ps = dropout_ps(model)
        if ps != [0.45]:
            fail(f"a config with model.dropout 0.45 gives Dropout p={ps}")

    _, model, *_ = train.setup(["--config", cfg_path, "--dropout", "0.1"])
    ps = dropout_ps(model)
    if ps != [0.1]:
        fail(f"--dropout 0.1 on the command line gives Dropout p={ps}")

    model.train()
    x = torch.randn(8, raw["data"]["n_features"])
    if torch.allclose(model(x), model(x)):
        fail("model in train mode is deterministic: dropout is not active")
    print("PASS: dropout and weight decay from the config reach the model and optimizer; the flag still overrides")
    sys.exit(0)


if __name__ == "__main__":
    main()
