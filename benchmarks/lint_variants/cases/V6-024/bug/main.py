import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import balanced_accuracy_score, classification_report
from torch.utils.data import DataLoader, TensorDataset

from net import OmicsClassifier
from prepare import load_cohort, prepare_splits


class CFG:
    expr_path = "data/TCGA_BRCA_expression.csv"
    clinical_path = "data/TCGA_BRCA_clinical.csv"
    n_genes = 2000
    test_size = 0.25
    seed = 7
    epochs = 100
    batch_size = 32
    lr = 5e-4
    weight_decay = 1e-3


def main(cfg=CFG):
    torch.manual_seed(cfg.seed)
    expr, labels = load_cohort(cfg.expr_path, cfg.clinical_path)
    X_train, X_test, y_train, y_test, classes = prepare_splits(expr, labels, cfg)
    train_ds = TensorDataset(torch.from_numpy(X_train).float(), torch.from_numpy(y_train).long())
    loader = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True, drop_last=True)
    model = OmicsClassifier(X_train.shape[1], len(classes))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    weights = torch.tensor(len(y_train) / (len(classes) * np.bincount(y_train)), dtype=torch.float32)
    criterion = nn.CrossEntropyLoss(weight=weights)
    for epoch in range(cfg.epochs):
        model.train()
        epoch_loss = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        if epoch % 10 == 0:
            print(f"epoch {epoch:3d} loss {epoch_loss / len(loader):.4f}")
    proba = model.predict_proba(torch.from_numpy(X_test).float()).numpy()
    pred = proba.argmax(1)
    print("balanced accuracy:", balanced_accuracy_score(y_test, pred))
    print(classification_report(y_test, pred, target_names=list(classes)))
    torch.save(model.state_dict(), "omics_classifier.pt")


if __name__ == "__main__":
    main()
