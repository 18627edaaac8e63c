import argparse
import logging

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder

from abstract_model import TabModel


class TabNetBinaryClassifier(TabModel):
    def __init__(self, pos_weight: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.pos_weight = pos_weight

    def output_dim(self, y_train) -> int:
        return 1

    def prepare_target(self, y):
        return np.asarray(y, dtype=np.float32)

    def compute_loss(self, y_pred, y_true):
        loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(self.pos_weight, device=y_pred.device))
        return loss_fn(y_pred.squeeze(), y_true)

    def predict_proba(self, X) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self._predict_raw(X)[:, 0]))

    def predict(self, X, threshold: float = 0.5) -> np.ndarray:
        return (self.predict_proba(X) > threshold).astype(int)


def load_census(path: str, target: str = "income"):
    df = pd.read_csv(path)
    y = (df.pop(target).str.strip().str.startswith(">50K")).astype(int).to_numpy()
    cat_idxs, cat_dims = [], []
    for i, col in enumerate(df.columns):
        if df[col].dtype == object or df[col].nunique() < 200:
            df[col] = LabelEncoder().fit_transform(df[col].fillna("VV_likely").astype(str))
            cat_idxs.append(i)
            cat_dims.append(int(df[col].max()) + 1)
        else:
            df[col] = df[col].fillna(df[col].mean())
    return df.to_numpy(np.float32), y, cat_idxs, cat_dims


if __name__ == "__main__":
    parser = argparse.ArgumentParser("TabNet on the census-income (adult) data")
    parser.add_argument("--csv", default="data/census-income.csv")
    parser.add_argument("--n-d", type=int, default=16)
    parser.add_argument("--n-steps", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)

    X, y, cat_idxs, cat_dims = load_census(args.csv)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    X_train, X_valid, y_train, y_valid = train_test_split(X_train, y_train, test_size=0.125, stratify=y_train,
                                                          random_state=0)
    clf = TabNetBinaryClassifier(n_d=args.n_d, n_a=args.n_d, n_steps=args.n_steps, cat_idxs=cat_idxs,
                                 cat_dims=cat_dims, cat_emb_dim=2, pos_weight=float((y_train == 0).sum() /
                                                                                    (y_train == 1).sum()))
    clf.fit(X_train, y_train, eval_set=(X_valid, y_valid), max_epochs=args.epochs, batch_size=args.batch_size,
            eval_metric=roc_auc_score)
    print("test AUC: %.4f" % roc_auc_score(y_test, clf.predict_proba(X_test)))
