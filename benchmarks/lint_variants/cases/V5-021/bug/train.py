import argparse
import time

import torch
import torch.nn.functional as F
import torch.optim as optim

from models import GAT
from utils import accuracy, load_data

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=72)
parser.add_argument("--epochs", type=int, default=10000)
parser.add_argument("--lr", type=float, default=0.005)
parser.add_argument("--weight_decay", type=float, default=5e-4)
parser.add_argument("--hidden", type=int, default=8)
parser.add_argument("--nb_heads", type=int, default=8)
parser.add_argument("--dropout", type=float, default=0.6)
parser.add_argument("--alpha", type=float, default=0.2)
parser.add_argument("--patience", type=int, default=100)
args = parser.parse_args()
torch.manual_seed(args.seed)

adj, features, labels, idx_train, idx_val, idx_test = load_data()
model = GAT(nfeat=features.shape[1], nhid=args.hidden, nclass=int(labels.max()) + 1,
            dropout=args.dropout, nheads=args.nb_heads, alpha=args.alpha)
optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)


def train(epoch):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    output = model(features, adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    print(f"Epoch: {epoch + 1:04d} loss_train: {loss_train.item():.4f} loss_val: {loss_val.item():.4f} "
          f"acc_val: {acc_val.item():.4f} time: {time.time() - t:.4f}s")
    return loss_val.item()


def compute_test():
    model.eval()
    output = model(features, adj)
    loss_test = F.nll_loss(output[idx_test], labels[idx_test])
    print(f"Test set results: loss= {loss_test.item():.4f} accuracy= {accuracy(output[idx_test], labels[idx_test]).item():.4f}")


best, bad_counter = float("inf"), 0
for epoch in range(args.epochs):
    loss_val = train(epoch)
    if loss_val < best:
        best, bad_counter = loss_val, 0
        torch.save(model.state_dict(), "best.pkl")
    else:
        bad_counter += 1
    if bad_counter == args.patience:
        break
model.load_state_dict(torch.load("best.pkl"))
compute_test()
