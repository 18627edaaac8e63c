import logging

import numpy as np
import pandas as pd
import torch
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import QuantileTransformer
from torch.utils.data import TensorDataset

logger = logging.getLogger(__name__)


class CategoricalEncoder:
    """Maps each categorical column to 1..K, with 0 reserved for unseen/missing values."""

    def fit(self, df, columns):
        self.columns = list(columns)
        self.vocab = {c: {v: i + 1 for i, v in enumerate(sorted(df[c].astype(str).unique()))} for c in self.columns}
        return self

    def transform(self, df):
        cols = [df[c].astype(str).map(self.vocab[c]).fillna(0).astype(np.int64).values for c in self.columns]
        return np.stack(cols, axis=1)

    @property
    def cardinalities(self):
        return [len(self.vocab[c]) + 1 for c in self.columns]


def load_frame(cfg):
    df = pd.read_csv(cfg.csv_path, skipinitialspace=True, na_values="?")
    df = df.dropna(subset=[cfg.target] + list(cfg.numerical)).reset_index(drop=True)
    df["label"] = (df[cfg.target].str.strip(". ") == cfg.positive_label).astype(np.int64)
    return df


def to_tensors(x_num, x_cat, y):
    return TensorDataset(torch.tensor(x_num, dtype=torch.float32), torch.tensor(x_cat, dtype=torch.long),
                         torch.tensor(y, dtype=torch.long))


def build_datasets(cfg):
    df = load_frame(cfg)
    train_df, valid_df = train_test_split(df, test_size=cfg.valid_size, stratify=df["label"], random_state=cfg.seed)
    train_df, valid_df = train_df.copy(), valid_df.copy()
    scaler = QuantileTransformer(n_quantiles=1000, output_distribution="normal", random_state=cfg.seed)
    train_df[cfg.numerical] = scaler.fit_transform(train_df[cfg.numerical])
    valid_df[cfg.numerical] = scaler.transform(valid_df[cfg.numerical])

    cat_enc = CategoricalEncoder().fit(train_df, cfg.categorical)
    train_ds = to_tensors(train_df[cfg.numerical].values, cat_enc.transform(train_df), train_df["label"].values)
    valid_ds = to_tensors(valid_df[cfg.numerical].values, cat_enc.transform(valid_df), valid_df["label"].values)
    logger.info("train %d rows (pos rate %.3f), valid %d rows", len(train_df), train_df["label"].mean(), len(valid_df))
    return train_ds, valid_ds, cat_enc.cardinalities
