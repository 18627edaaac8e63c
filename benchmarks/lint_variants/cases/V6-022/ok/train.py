import argparse

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

from features import CATEGORICAL, NUMERIC, TARGET, build_preprocessor, load_frame
from model import make_mlp


def to_loader(X, y, batch_size, shuffle):
    ds = TensorDataset(torch.tensor(X, dtype=torch.float32), torch.tensor(y, dtype=torch.float32))
    return DataLoader(ds, batch_size=batch_size, shuffle=shuffle)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default="data/adult.csv")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch_size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)

    df = load_frame(args.csv)
    pre = build_preprocessor()
    X = df[NUMERIC + CATEGORICAL]
    y = df[TARGET].values
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y,
                                                        random_state=args.seed)
    X_train = pre.fit_transform(X_train)
    X_test = pre.transform(X_test)

    train_loader = to_loader(X_train, y_train, args.batch_size, True)
    test_loader = to_loader(X_test, y_test, 4096, False)
    model = make_mlp(X_train.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-5)
    criterion = nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        model.train()
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            probs = np.concatenate([torch.sigmoid(model(xb)).squeeze(1).numpy() for xb, _ in test_loader])
        print(f"epoch {epoch:02d} loss {loss.item():.4f} test AUC {roc_auc_score(y_test, probs):.4f}")
    torch.save(model.state_dict(), "adult_mlp.pt")


if __name__ == "__main__":
    main()
