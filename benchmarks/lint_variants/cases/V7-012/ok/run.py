import argparse
import logging
import os

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.metrics import roc_auc_score
from torch.utils.data import DataLoader

from data import KTDataset, collate, load_assistments, split_learners
from model import DKT

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("dkt")


def step_loss(model, batch, device):
    batch = {k: v.to(device) for k, v in batch.items()}
    logits = model(batch["skills"], batch["responses"])
    pred = DKT.gather_next(logits, batch["next_skills"])
    mask = batch["mask"]
    loss = F.binary_cross_entropy_with_logits(pred[mask], batch["next_responses"][mask])
    return loss, pred[mask], batch["next_responses"][mask]


def train_epoch(model, loader, optimizer, device, clip: float):
    model.train()
    total_loss = 0.0
    for batch in loader:
        loss, _, _ = step_loss(model, batch, device)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(loader)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    preds, labels, losses = [], [], []
    for batch in loader:
        loss, p, y = step_loss(model, batch, device)
        losses.append(loss.item())
        preds.append(torch.sigmoid(p).cpu().numpy())
        labels.append(y.cpu().numpy())
    preds, labels = np.concatenate(preds), np.concatenate(labels)
    return {"loss": float(np.mean(losses)), "auc": roc_auc_score(labels, preds),
            "acc": float(((preds > 0.5) == labels).mean())}


def main():
    p = argparse.ArgumentParser(description="DKT on ASSISTments")
    p.add_argument("--data", default="data/skill_builder_data.csv")
    p.add_argument("--max-len", type=int, default=200)
    p.add_argument("--hidden", type=int, default=200)
    p.add_argument("--emb", type=int, default=100)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--bs", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--clip", type=float, default=10.0)
    p.add_argument("--patience", type=int, default=5)
    p.add_argument("--save", default="checkpoints/dkt.pt")
    args = p.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    seqs, num_skills = load_assistments(args.data)
    train, valid, test = split_learners(seqs)
    mk = lambda s, sh: DataLoader(KTDataset(s, args.max_len), args.bs, shuffle=sh, collate_fn=collate)
    train_dl, valid_dl, test_dl = mk(train, True), mk(valid, False), mk(test, False)

    model = DKT(num_skills, args.emb, args.hidden, dropout=args.dropout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    os.makedirs(os.path.dirname(args.save), exist_ok=True)
    best_auc, bad = 0.0, 0
    for epoch in range(1, args.epochs + 1):
        train_loss = train_epoch(model, train_dl, optimizer, device, args.clip)
        val = evaluate(model, valid_dl, device)
        log.info(f"epoch {epoch:02d} train_loss {train_loss:.4f} val_loss {val['loss']:.4f} "
                 f"val_auc {val['auc']:.4f} val_acc {val['acc']:.4f}")
        if val["auc"] > best_auc:
            best_auc, bad = val["auc"], 0
            torch.save({"model": model.state_dict(), "num_skills": num_skills, "args": vars(args)}, args.save)
        else:
            bad += 1
            if bad >= args.patience:
                log.info("early stop at epoch %d", epoch)
                break
    model.load_state_dict(torch.load(args.save)["model"])
    test_metrics = evaluate(model, test_dl, device)
    log.info("test auc %.4f acc %.4f", test_metrics["auc"], test_metrics["acc"])


if __name__ == "__main__":
    main()
