import argparse

import torch
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10

from augment import CIFAR10Pair, test_transform, train_transform
from model import SimCLR, nt_xent
from utils import knn_monitor

parser = argparse.ArgumentParser(description="Train SimCLR")
parser.add_argument("--feature_dim", default=128, type=int)
parser.add_argument("--temperature", default=0.5, type=float)
parser.add_argument("--k", default=200, type=int)
parser.add_argument("--batch_size", default=512, type=int)
parser.add_argument("--epochs", default=500, type=int)
args = parser.parse_args()

train_data = CIFAR10Pair(root="data", train=True, transform=train_transform, download=True)
train_loader = DataLoader(train_data, batch_size=args.batch_size, shuffle=True, num_workers=16, drop_last=True)
memory_data = CIFAR10(root="data", train=True, transform=test_transform, download=True)
memory_loader = DataLoader(memory_data, batch_size=args.batch_size, shuffle=False, num_workers=16)
test_data = CIFAR10(root="data", train=False, transform=test_transform, download=True)
test_loader = DataLoader(test_data, batch_size=args.batch_size, shuffle=False, num_workers=16)

model = SimCLR(args.feature_dim).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-6)
best_acc = 0.0
model.train()
for epoch in range(1, args.epochs + 1):
    model.train()
    total_loss, total_num = 0.0, 0
    for pos_1, pos_2, _ in train_loader:
        pos_1, pos_2 = pos_1.cuda(non_blocking=True), pos_2.cuda(non_blocking=True)
        _, out_1 = model(pos_1)
        _, out_2 = model(pos_2)
        loss = nt_xent(out_1, out_2, args.temperature)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_num += pos_1.size(0)
        total_loss += loss.item() * pos_1.size(0)
    acc = knn_monitor(model, memory_loader, test_loader, k=args.k)
    print(f"Epoch [{epoch}/{args.epochs}] loss: {total_loss / total_num:.4f} knn acc@1: {acc:.2f}%")
    if acc > best_acc:
        best_acc = acc
        torch.save(model.state_dict(), f"results/{args.feature_dim}_{args.temperature}_model.pth")
