"""Fit the embedding probe on a trained model and write embeddings for the retrieval service.

    python export.py RUN_DIR        (RUN_DIR from a run with export.probe=true and run_dir set)

The probe is fitted by least squares to reproduce the class logits' principal directions,
so it never changes the classifier itself.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import torch

from data import Standardizer, make_table
from model import build_model


def fit_probe(model, x: torch.Tensor) -> None:
    with torch.no_grad():
        feats = model.features(x)
        centred = feats - feats.mean(0, keepdim=True)
        _, _, vh = torch.linalg.svd(centred, full_matrices=False)
        k = model.probe.out_features
        model.probe.weight.copy_(vh[:k])
        model.probe.bias.copy_(-(feats.mean(0) @ vh[:k].T))


def main(run_dir: str) -> None:
    with open(os.path.join(run_dir, "config.json")) as fh:
        cfg = json.load(fh)
    if not cfg["export"]["probe"]:
        raise SystemExit("this run was trained without export.probe=true")
    model = build_model(cfg)
    model.load_state_dict(torch.load(os.path.join(run_dir, "model.pt")))
    model.eval()
    x_tr, _, x_va, _ = make_table(cfg)
    scaler = Standardizer().fit(x_tr)
    x = torch.tensor(scaler.transform(np.concatenate([x_tr, x_va])), dtype=torch.float32)
    fit_probe(model, x)
    emb = model.embed(x).numpy()
    out = cfg["export"].get("path") or os.path.join(run_dir, "embeddings.npy")
    np.save(out, emb)
    print(f"wrote {emb.shape} embeddings to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
