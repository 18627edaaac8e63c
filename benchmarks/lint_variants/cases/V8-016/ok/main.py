import argparse
import logging
import os
from collections import defaultdict

import torch
import yaml
from rdkit.Chem.Scaffolds import MurckoScaffold
from torch_geometric.datasets import MoleculeNet
from torch_geometric.loader import DataLoader

from engine import EarlyStopping, evaluate, train_epoch
from models import build_model

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
log = logging.getLogger("molprop")

DEFAULT_CFG = {"model": {"name": "gine", "num_layers": 5, "emb_dim": 300, "num_tasks": 1, "drop_ratio": 0.5},
               "train": {"batch_size": 32, "epochs": 100, "lr": 1e-3, "weight_decay": 0.0, "patience": 20}}


def scaffold_split(dataset, frac_train=0.8, frac_valid=0.1):
    scaffolds = defaultdict(list)
    for i, data in enumerate(dataset):
        scaffolds[MurckoScaffold.MurckoScaffoldSmiles(smiles=data.smiles, includeChirality=True)].append(i)
    groups = sorted(scaffolds.values(), key=lambda g: (len(g), g[0]), reverse=True)
    n = len(dataset)
    train, valid, test = [], [], []
    for g in groups:
        if len(train) + len(g) <= frac_train * n:
            train += g
        elif len(valid) + len(g) <= frac_valid * n:
            valid += g
        else:
            test += g
    return dataset[train], dataset[valid], dataset[test]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="BBBP")
    ap.add_argument("--config", default=None, help="optional YAML overriding DEFAULT_CFG")
    ap.add_argument("--root", default="data/moleculenet")
    ap.add_argument("--out", default="runs/molprop")
    args = ap.parse_args()
    cfg = DEFAULT_CFG
    if args.config:
        with open(args.config) as f:
            cfg = {**cfg, **yaml.safe_load(f)}

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = MoleculeNet(args.root, args.dataset)
    train_set, valid_set, test_set = scaffold_split(dataset)
    tc = cfg["train"]
    train_loader = DataLoader(train_set, batch_size=tc["batch_size"], shuffle=True)
    valid_loader = DataLoader(valid_set, batch_size=256)
    test_loader = DataLoader(test_set, batch_size=256)

    model = build_model(cfg["model"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])
    stopper = EarlyStopping(tc["patience"])
    os.makedirs(args.out, exist_ok=True)
    ckpt = os.path.join(args.out, f"{args.dataset}_best.pt")
    for epoch in range(1, tc["epochs"] + 1):
        loss = train_epoch(model, train_loader, optimizer, device)
        val_auc = evaluate(model, valid_loader, device)
        improved, stop = stopper.step(val_auc)
        log.info("epoch %03d loss %.4f val_auc %.4f%s", epoch, loss, val_auc, " *" if improved else "")
        if improved:
            torch.save(model.state_dict(), ckpt)
        if stop:
            break
    model.load_state_dict(torch.load(ckpt))
    log.info("test ROC-AUC %.4f", evaluate(model, test_loader, device))


if __name__ == "__main__":
    main()
