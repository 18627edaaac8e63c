import argparse
import logging
import os

import torch
import torch.nn.functional as F
from sklearn.metrics import roc_auc_score
from torch.utils.data import DataLoader

from config import Config
from preprocessing import build_datasets
from tabnet import TabNet

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
log = logging.getLogger("tabnet")


@torch.no_grad()
def predict_proba(model, loader, device):
    model.eval()
    probs, labels = [], []
    for x_num, x_cat, y in loader:
        logits, _ = model(x_num.to(device), x_cat.to(device))
        probs.append(torch.softmax(logits, dim=1)[:, 1].cpu())
        labels.append(y)
    return torch.cat(probs).numpy(), torch.cat(labels).numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default=None)
    ap.add_argument("--epochs", type=int, default=None)
    args = ap.parse_args()
    cfg = Config()
    if args.csv:
        cfg.data.csv_path = args.csv
    if args.epochs:
        cfg.train.max_epochs = args.epochs
    torch.manual_seed(cfg.data.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    train_ds, valid_ds, cards = build_datasets(cfg.data)
    train_dl = DataLoader(train_ds, batch_size=cfg.train.batch_size, shuffle=True, drop_last=True)
    valid_dl = DataLoader(valid_ds, batch_size=4096)
    model = TabNet(len(cfg.data.numerical), cards, 2, cfg.model).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.train.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.9)

    best_auc, bad = 0.0, 0
    os.makedirs(os.path.dirname(cfg.train.checkpoint), exist_ok=True)
    for epoch in range(cfg.train.max_epochs):
        model.train()
        total = 0.0
        for x_num, x_cat, y in train_dl:
            x_num, x_cat, y = x_num.to(device), x_cat.to(device), y.to(device)
            logits, m_loss = model(x_num, x_cat)
            loss = F.cross_entropy(logits, y) + cfg.train.lambda_sparse * m_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            optimizer.step()
            total += loss.item()
        scheduler.step()
        probs, labels = predict_proba(model, valid_dl, device)
        auc = roc_auc_score(labels, probs)
        log.info("epoch %d loss %.4f valid AUC %.4f", epoch, total / len(train_dl), auc)
        if auc > best_auc:
            best_auc, bad = auc, 0
            torch.save(model.state_dict(), cfg.train.checkpoint)
        else:
            bad += 1
            if bad >= cfg.train.patience:
                log.info("early stopping at epoch %d (best AUC %.4f)", epoch, best_auc)
                break


if __name__ == "__main__":
    main()
