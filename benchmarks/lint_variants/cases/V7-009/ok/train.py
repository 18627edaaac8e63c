import argparse
import logging

import numpy as np
import pandas as pd
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

from callbacks import LoggingCallback, RecallAtK
from towers import ItemTower, TwoTower, UserTower
from trainer import RetrievalTrainer


class InteractionDataset(Dataset):
    def __init__(self, pairs: pd.DataFrame, users: pd.DataFrame, items: pd.DataFrame, item_freq: np.ndarray):
        self.pairs = pairs.reset_index(drop=True)
        self.users = users.set_index("user_id")
        self.items = items.set_index("item_id")
        self.log_q = np.log(item_freq / item_freq.sum() + 1e-12)

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        row = self.pairs.iloc[i]
        u = self.users.loc[row.user_id]
        it = self.items.loc[row.item_id]
        user = {"user_id": int(row.user_id), "age": int(u.age_bucket), "gender": int(u.gender),
                "history": torch.tensor(row.history[-50:] or [0])}
        item = {"item_id": int(row.item_id), "genres": torch.tensor(it.genre_ids or [0]),
                "year": float(it.year_norm)}
        return user, item, float(self.log_q[row.item_id])


def collate(batch):
    users, items, log_q = zip(*batch)
    u = {k: torch.tensor([x[k] for x in users]) for k in ("user_id", "age", "gender")}
    u["history"] = pad_sequence([x["history"] for x in users], batch_first=True)
    v = {"item_id": torch.tensor([x["item_id"] for x in items]),
         "genres": pad_sequence([x["genres"] for x in items], batch_first=True),
         "year": torch.tensor([x["year"] for x in items], dtype=torch.float32)}
    return u, v, torch.tensor(log_q, dtype=torch.float32)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/ml-1m")
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--bs", type=int, default=1024)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--eval-every", type=int, default=2000)
    p.add_argument("--dropout", type=float, default=0.2)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO)

    users = pd.read_parquet(f"{args.data}/users.parquet")
    items = pd.read_parquet(f"{args.data}/items.parquet")
    pairs = pd.read_parquet(f"{args.data}/train_pairs.parquet")
    freq = np.bincount(pairs.item_id, minlength=len(items) + 1).astype(np.float64) + 1.0
    train_dl = DataLoader(InteractionDataset(pairs, users, items, freq), batch_size=args.bs, shuffle=True,
                          num_workers=4, collate_fn=collate, drop_last=True)
    eval_users = torch.load(f"{args.data}/eval_users.pt")
    item_catalog = torch.load(f"{args.data}/item_catalog.pt")

    model = TwoTower(UserTower(len(users) + 1, len(items) + 1, 7, 3, args.dim, dropout=args.dropout),
                     ItemTower(len(items) + 1, 19, args.dim, dropout=args.dropout))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    trainer = RetrievalTrainer(model, opt, device="cuda" if torch.cuda.is_available() else "cpu",
                               callbacks=[LoggingCallback(200), RecallAtK(eval_users, item_catalog, args.eval_every)],
                               max_epochs=args.epochs)
    trainer.fit(train_dl)


if __name__ == "__main__":
    main()
