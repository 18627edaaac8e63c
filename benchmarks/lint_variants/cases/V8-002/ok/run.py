import argparse
import json
import logging
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset
from torchvision import datasets, transforms

from strategies import STRATEGIES

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(message)s")
log = logging.getLogger("cl")


class MLP(nn.Module):
    def __init__(self, hidden=400, n_classes=10, p=0.2):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(784, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def split_mnist(root, n_tasks=5):
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train = datasets.MNIST(root, train=True, download=True, transform=tf)
    test = datasets.MNIST(root, train=False, download=True, transform=tf)
    per = 10 // n_tasks
    exps = []
    for t in range(n_tasks):
        classes = set(range(t * per, (t + 1) * per))
        tr_idx = [i for i, c in enumerate(train.targets.tolist()) if c in classes]
        te_idx = [i for i, c in enumerate(test.targets.tolist()) if c in classes]
        exps.append((Subset(train, tr_idx), Subset(test, te_idx)))
    return exps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strategy", default="er", choices=list(STRATEGIES))
    ap.add_argument("--root", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--eval-every", type=int, default=1)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--mem-size", type=int, default=2000)
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--out", default="results")
    args = ap.parse_args()

    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = MLP().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    kwargs = dict(epochs=args.epochs, eval_every=args.eval_every)
    if args.strategy == "er":
        kwargs["mem_size"] = args.mem_size
    strategy = STRATEGIES[args.strategy](model, opt, nn.CrossEntropyLoss(), device, **kwargs)

    exps = split_mnist(args.root)
    test_loaders = [DataLoader(te, batch_size=512) for _, te in exps]
    for t, (tr, _) in enumerate(exps):
        log.info("=== experience %d (%d samples) ===", t, len(tr))
        strategy.train_exp(t, DataLoader(tr, batch_size=args.bs, shuffle=True, drop_last=True), test_loaders)
        final = strategy.eval_stream(test_loaders)
        log.info("after exp %d: avg acc over all tasks %.2f", t, sum(final) / len(final))

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.strategy}.json"), "w") as f:
        json.dump(strategy.history, f)
    torch.save(model.state_dict(), os.path.join(args.out, f"{args.strategy}_model.pt"))


if __name__ == "__main__":
    main()
