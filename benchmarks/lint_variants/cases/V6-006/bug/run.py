import argparse

import torch
from torch.utils.data import DataLoader

from data import TripletDataset, load_ml1m
from model import BPRMF
from trainer import Trainer


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--path", default="data/ml-1m/ratings.dat")
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch_size", type=int, default=4096)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--num_neg", type=int, default=1)
    return p.parse_args()


def main():
    args = parse()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    split = load_ml1m(args.path)
    loader = DataLoader(TripletDataset(split.train, split.num_items, args.num_neg),
                        batch_size=args.batch_size, shuffle=True, num_workers=4)
    model = BPRMF(split.num_users, split.num_items, args.dim).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    trainer = Trainer(model, optimizer, device)
    best = 0.0
    for epoch in range(args.epochs):
        trainer.train_epoch(loader, epoch)
        hr, ndcg = trainer.validate(split.test_users, split.test_items, split.train_mask)
        print(f"HR@10 {hr:.4f} NDCG@10 {ndcg:.4f}")
        if ndcg > best:
            best = ndcg
            torch.save(model.state_dict(), "bprmf_best.pt")


if __name__ == "__main__":
    main()
