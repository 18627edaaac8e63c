import argparse
import json
import logging
import os

import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split

from losses import LossWeights, reconstruction_accuracy, vae_loss
from model import MoleculeVAE

logger = logging.getLogger("chemvae")
PAD = " "


def build_charset(smiles):
    chars = sorted(set("".join(smiles)) | {PAD})
    return {c: i for i, c in enumerate(chars)}


def one_hot_encode(smiles, charset, max_len):
    x = np.zeros((len(smiles), max_len, len(charset)), dtype=np.float32)
    for i, s in enumerate(smiles):
        s = s.ljust(max_len, PAD)[:max_len]
        for j, c in enumerate(s):
            x[i, j, charset[c]] = 1.0
    return x


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", default="data/250k_rndm_zinc_drugs_clean_3.csv")
    p.add_argument("--max-len", type=int, default=120)
    p.add_argument("--latent", type=int, default=56)
    p.add_argument("--epochs", type=int, default=120)
    p.add_argument("--bs", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--out", default="runs/chemvae")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO)
    os.makedirs(args.out, exist_ok=True)

    df = pd.read_csv(args.csv)
    df["smiles"] = df["smiles"].str.strip()
    df = df[df["smiles"].str.len() <= args.max_len]
    charset = build_charset(df["smiles"])
    with open(os.path.join(args.out, "charset.json"), "w") as f:
        json.dump(charset, f)
    x = torch.from_numpy(one_hot_encode(df["smiles"].tolist(), charset, args.max_len))
    props = df[["logP", "qed", "SAS"]].to_numpy(np.float32)
    props = torch.from_numpy((props - props.mean(0)) / props.std(0))
    train_ds, val_ds = random_split(TensorDataset(x, props), [0.9, 0.1], generator=torch.Generator().manual_seed(0))
    train_dl = DataLoader(train_ds, batch_size=args.bs, shuffle=True, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=args.bs)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = MoleculeVAE(len(charset), args.max_len, args.latent).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=3, min_lr=1e-6)
    weights = LossWeights()
    best = float("inf")
    for epoch in range(args.epochs):
        model.train()
        for xb, pb in train_dl:
            xb, pb = xb.to(device), pb.to(device)
            loss, parts = vae_loss(model(xb), xb, pb, epoch, weights)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
        model.eval()
        val_losses, accs = [], []
        with torch.no_grad():
            for xb, pb in val_dl:
                xb, pb = xb.to(device), pb.to(device)
                out = model(xb)
                val_losses.append(vae_loss(out, xb, pb, epoch, weights)[0].item())
                accs.append(reconstruction_accuracy(out[0], xb, charset[PAD]))
        val_loss = float(np.mean(val_losses))
        sched.step(val_loss)
        char_acc, mol_acc = np.mean(accs, axis=0)
        logger.info("epoch %d | train %s | val loss %.3f char acc %.3f mol acc %.3f", epoch, parts, val_loss,
                    char_acc, mol_acc)
        if val_loss < best:
            best = val_loss
            torch.save({"model": model.state_dict(), "args": vars(args)}, os.path.join(args.out, "best.pt"))


if __name__ == "__main__":
    main()
