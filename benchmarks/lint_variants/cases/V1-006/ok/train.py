import argparse

import torch
import torch.nn.functional as F
import torch_geometric.transforms as T
from torch_geometric.datasets import Planetoid

from models import GCN, SAGE


def train(model, data, optimizer):
    model.train()
    optimizer.zero_grad()
    out = model(data.x, data.edge_index)
    loss = F.nll_loss(F.log_softmax(out[data.train_mask], dim=1), data.y[data.train_mask])
    loss.backward()
    optimizer.step()
    return loss.item()


@torch.no_grad()
def test(model, data):
    model.eval()
    pred = model(data.x, data.edge_index).argmax(dim=-1)
    accs = []
    for mask in [data.train_mask, data.val_mask, data.test_mask]:
        accs.append(int((pred[mask] == data.y[mask]).sum()) / int(mask.sum()))
    return accs


def main():
    parser = argparse.ArgumentParser(description="Planetoid node classification")
    parser.add_argument("--dataset", type=str, default="Cora")
    parser.add_argument("--model", type=str, default="gcn", choices=["gcn", "sage"])
    parser.add_argument("--hidden_channels", type=int, default=64)
    parser.add_argument("--num_layers", type=int, default=3)
    parser.add_argument("--dropout", type=float, default=0.5)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    print(args)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = Planetoid("data/Planetoid", args.dataset, transform=T.NormalizeFeatures())
    data = dataset[0].to(device)
    Model = GCN if args.model == "gcn" else SAGE
    model = Model(dataset.num_features, args.hidden_channels, dataset.num_classes,
                  args.num_layers, args.dropout).to(device)

    results = []
    for run in range(args.runs):
        model.reset_parameters()
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)
        best_val = test_acc = 0
        for epoch in range(1, args.epochs + 1):
            loss = train(model, data, optimizer)
            train_acc, val_acc, tmp_test_acc = test(model, data)
            if val_acc > best_val:
                best_val, test_acc = val_acc, tmp_test_acc
            if epoch % 50 == 0:
                print(f"Run {run:02d} Epoch {epoch:03d} Loss {loss:.4f} Train {train_acc:.4f} "
                      f"Val {val_acc:.4f} Test {tmp_test_acc:.4f}")
        results.append(test_acc)
    res = torch.tensor(results)
    print(f"Final test acc: {res.mean():.4f} +- {res.std():.4f}")


if __name__ == "__main__":
    main()
