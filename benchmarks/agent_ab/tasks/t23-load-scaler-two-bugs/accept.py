"""Acceptance test for t23: python accept.py PROJECT_DIR

Two bugs, both needed for the fix (either alone leaves val MAE at ~300 kWh):
  1. scaling.TargetScaler round-trips: inverse_transform(transform(y)) == y (relative 1e-6)
     for the transforms 'log1p', 'sqrt' and 'none', on loads of 150-1000 kWh;
  2. trained with accept.py's copy of the shipped configuration (target_transform log1p),
     the validation MAE the project reports is <= 25 kWh and its MAPE <= 8%
     (both bugs: 306 kWh / 100%; fixed: 13 kWh / 4.2%);
  3. the reported MAE matches accept.py's own: the model's outputs mapped back to kWh with
     the project's (round-tripping) target scaler, against the raw validation loads.
"""
import copy
import os
import sys

import numpy as np
import torch

torch.set_num_threads(1)

CFG = {
    "seed": 0,
    "data": {"data_seed": 11, "days_train": 300, "days_val": 60, "batch_size": 128,
             "features": ["hour_sin", "hour_cos", "dow_sin", "dow_cos", "temp_c", "humidity", "holiday"],
             "target": "load_kwh", "target_transform": "log1p"},
    "model": {"hidden": [128, 64], "dropout": 0.0},
    "optim": {"lr": 0.003, "weight_decay": 0.0001},
    "train": {"epochs": 15, "grad_clip": 5.0, "log_every": 3},
    "run_dir": None,
    "log_level": "WARNING",
}


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    import logging
    logging.disable(logging.INFO)
    from data import build_data
    from scaling import TargetScaler
    from train import run

    ok = True
    y = np.random.default_rng(0).uniform(150.0, 1000.0, size=500)
    for kind in ("log1p", "sqrt", "none"):
        s = TargetScaler(kind).fit(y)
        back = np.asarray(s.inverse_transform(s.transform(y)), dtype=np.float64)
        err = float(np.max(np.abs(back - y) / y))
        print(f"TargetScaler({kind!r}) round trip: max relative error {err:.2e}")
        if not err <= 1e-6:
            print(f"FAIL: TargetScaler({kind!r}).inverse_transform does not invert transform")
            ok = False

    cfg = copy.deepcopy(CFG)
    model, hist = run(cfg, verbose=False)
    last = hist[-1]
    print(f"reported: val_mae {last['val_mae']:.1f} kWh, val_mape {last['val_mape']:.1f}%")
    if not (last["val_mae"] <= 25.0 and last["val_mape"] <= 8.0):
        print("FAIL: validation error in kWh too large (expected <= 25 kWh, <= 8%)")
        ok = False

    _, val_dl, _, ys = build_data(copy.deepcopy(CFG))
    model.eval()
    preds, trues = [], []
    with torch.no_grad():
        for batch in val_dl:
            preds.append(model(batch[0]).numpy())
            trues.append(batch[-1].numpy())
    y_pred = np.asarray(ys.inverse_transform(np.concatenate(preds)), dtype=np.float64)
    mae = float(np.abs(y_pred - np.concatenate(trues)).mean())
    print(f"accept's own val MAE: {mae:.1f} kWh")
    if not (mae <= 25.0 and abs(mae - last["val_mae"]) <= 1.0):
        print("FAIL: the model's predictions in kWh do not match the reported validation MAE")
        ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
