import argparse
import time

import torch
import torch.nn.functional as F

from layers import GAT
from utils import accuracy, load_data

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=1000)
parser.add_argument("--lr", type=float, default=0.005)
parser.add_argument("--weight_decay", type=float, default=5e-4)
parser.add_argument("--hidden", type=int, default=8)
parser.add_argument("--nb_heads", type=int, default=8)
parser.add_argument("--dropout", type=float, default=0.6)
parser.add_argument("--alpha", type=float, default=0.2)
parser.add_argument("--patience", type=int, default=100)
args = parser.parse_args()

adj, features, labels, idx_train, idx_val, idx_test = load_data()
model = GAT(features.shape[1], args.hidden, int(labels.max()) + 1, args.dropout, args.alpha, args.nb_heads)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)


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
    print(f"Epoch: {epoch + 1:04d} loss_train: {loss_train.item():.4f} loss_val: {loss_val.item():.4f} "
          f"acc_val: {accuracy(output[idx_val], labels[idx_val]).item():.4f} time: {time.time() - t:.4f}s")
    return loss_val.item()


best, bad_counter = float("inf"), 0
for epoch in range(args.epochs):
    val_loss = train(epoch)
    if val_loss < best:
        best, bad_counter = val_loss, 0
        torch.save(model.state_dict(), "best.pkl")
    else:
        bad_counter += 1
    if bad_counter == args.patience:
        break

model.load_state_dict(torch.load("best.pkl"))
model.eval()
output = model(features, adj)
print("Test set results:", F.nll_loss(output[idx_test], labels[idx_test]).item(),
      accuracy(output[idx_test], labels[idx_test]).item())
