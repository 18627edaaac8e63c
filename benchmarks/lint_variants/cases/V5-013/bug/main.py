import argparse
import time

import torch
import torch.nn as nn
import torch.utils.data as data

import data_utils
from metrics import metrics
from model import NCF

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.001)
parser.add_argument("--dropout", type=float, default=0.2)
parser.add_argument("--batch_size", type=int, default=256)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--top_k", type=int, default=10)
parser.add_argument("--num_ng", type=int, default=4)
parser.add_argument("--test_num_ng", type=int, default=99)
args = parser.parse_args()

train_data, test_data, user_num, item_num, train_mat = data_utils.load_all()
train_dataset = data_utils.NCFData(train_data, item_num, train_mat, args.num_ng, True)
test_dataset = data_utils.NCFData(test_data, item_num, train_mat, 0, False)
train_loader = data.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True, num_workers=4)
test_loader = data.DataLoader(test_dataset, batch_size=args.test_num_ng + 1, shuffle=False, num_workers=0)

model = NCF(user_num, item_num, 32, 3, args.dropout).cuda()
loss_function = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

best_hr = 0
for epoch in range(args.epochs):
    model.train()
    start_time = time.time()
    train_loader.dataset.ng_sample()
    for user, item, label in train_loader:
        user, item, label = user.cuda(), item.cuda(), label.float().cuda()
        model.zero_grad()
        prediction = model(user, item)
        loss = loss_function(prediction, label)
        loss.backward()
        optimizer.step()
    HR, NDCG = metrics(model, test_loader, args.top_k)
    elapsed = time.time() - start_time
    print(f"Epoch {epoch:03d} time {elapsed:.1f}s HR={HR:.3f} NDCG={NDCG:.3f}")
    if HR > best_hr:
        best_hr, best_ndcg, best_epoch = HR, NDCG, epoch
        torch.save(model, "models/NeuMF.pth")
print(f"End. Best epoch {best_epoch:03d}: HR = {best_hr:.3f}, NDCG = {best_ndcg:.3f}")
