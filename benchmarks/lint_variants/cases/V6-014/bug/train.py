import argparse

import torch
from sklearn.metrics import log_loss, roc_auc_score
from torch.utils.data import DataLoader

from dataset import CriteoDataset
from model import DeepFM


def weighted_bce(prob, target, pos_weight=1.0):
    loss = -(pos_weight * target * torch.log(prob) + (1 - target) * torch.log(1 - prob))
    return loss.mean()


def train(model, optimizer, loader, device, pos_weight, log_interval=1000):
    model.train()
    total = 0.0
    for i, (fields, target) in enumerate(loader):
        fields, target = fields.to(device), target.float().to(device)
        y = model(fields)
        loss = weighted_bce(y, target, pos_weight)
        model.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        if (i + 1) % log_interval == 0:
            print(f"    step {i + 1}: loss {total / log_interval:.5f}")
            total = 0.0


@torch.no_grad()
def test(model, loader, device):
    model.eval()
    targets, predicts = [], []
    for fields, target in loader:
        y = model(fields.to(device))
        targets.extend(target.tolist())
        predicts.extend(y.tolist())
    return roc_auc_score(targets, predicts), log_loss(targets, predicts)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset_path", default="criteo/train.txt")
    parser.add_argument("--epoch", type=int, default=10)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--batch_size", type=int, default=2048)
    parser.add_argument("--pos_weight", type=float, default=3.0)
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args()
    device = torch.device(args.device)
    train_ds = CriteoDataset(args.dataset_path, split="train")
    valid_ds = CriteoDataset(args.dataset_path, split="valid")
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, num_workers=8)
    valid_loader = DataLoader(valid_ds, batch_size=args.batch_size, num_workers=8)
    model = DeepFM(train_ds.field_dims).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=1e-6)
    for epoch_i in range(args.epoch):
        train(model, optimizer, train_loader, device, args.pos_weight)
        auc, ll = test(model, valid_loader, device)
        print(f"epoch {epoch_i}: validation auc {auc:.5f} logloss {ll:.5f}")
        torch.save(model.state_dict(), f"deepfm_ep{epoch_i}.pt")


if __name__ == "__main__":
    main()
