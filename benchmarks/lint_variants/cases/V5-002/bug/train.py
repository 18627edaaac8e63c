import argparse

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score
from torch.utils.data import DataLoader
from transformers import AutoTokenizer, get_linear_schedule_with_warmup

from data import LABELS, CommentDataset, make_collate_fn
from model import ToxicClassifier


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train_csv", default="data/train.csv")
    p.add_argument("--valid_csv", default="data/valid.csv")
    p.add_argument("--backbone", default="bert-base-uncased")
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=2e-5)
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    all_probs, all_targets = [], []
    for batch in loader:
        probs = model(batch["input_ids"].to(device), batch["attention_mask"].to(device))
        all_probs.append(probs.cpu().numpy())
        all_targets.append(batch["labels"].numpy())
    return roc_auc_score(np.concatenate(all_targets), np.concatenate(all_probs), average="macro")


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = AutoTokenizer.from_pretrained(args.backbone)
    collate_fn = make_collate_fn(tokenizer)
    train_loader = DataLoader(CommentDataset(args.train_csv), batch_size=args.batch_size,
                              shuffle=True, collate_fn=collate_fn)
    valid_loader = DataLoader(CommentDataset(args.valid_csv), batch_size=args.batch_size,
                              collate_fn=collate_fn)
    model = ToxicClassifier(args.backbone, num_labels=len(LABELS)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    total = len(train_loader) * args.epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, int(0.1 * total), total)
    criterion = nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        model.train()
        for step, batch in enumerate(train_loader):
            outputs = model(batch["input_ids"].to(device), batch["attention_mask"].to(device))
            loss = criterion(outputs, batch["labels"].to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            if step % 200 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        auc = evaluate(model, valid_loader, device)
        print(f"epoch {epoch} valid auc {auc:.4f}")
        torch.save(model.state_dict(), f"toxic_epoch{epoch}.pt")


if __name__ == "__main__":
    main()
