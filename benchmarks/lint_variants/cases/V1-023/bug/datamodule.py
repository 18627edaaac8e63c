import pandas as pd
import pytorch_lightning as pl
import torch
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset


class CreditDataModule(pl.LightningDataModule):
    def __init__(self, csv_path, cat_cols, cont_cols, target="TARGET", batch_size=1024):
        super().__init__()
        self.csv_path, self.cat_cols, self.cont_cols = csv_path, cat_cols, cont_cols
        self.target, self.batch_size = target, batch_size

    def setup(self, stage=None):
        df = pd.read_csv(self.csv_path)
        self.cardinalities = []
        for c in self.cat_cols:
            df[c] = df[c].astype("category").cat.codes + 1
            self.cardinalities.append(int(df[c].max()))
        df[self.cont_cols] = df[self.cont_cols].fillna(df[self.cont_cols].median())
        tr, va = train_test_split(df, test_size=0.2, stratify=df[self.target], random_state=0)
        self.train_ds, self.val_ds = self._to_ds(tr), self._to_ds(va)

    def _to_ds(self, df):
        return TensorDataset(torch.tensor(df[self.cat_cols].values, dtype=torch.long),
                             torch.tensor(df[self.cont_cols].values, dtype=torch.float32),
                             torch.tensor(df[self.target].values, dtype=torch.long))

    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=self.batch_size, shuffle=True, num_workers=4)

    def val_dataloader(self):
        return DataLoader(self.val_ds, batch_size=self.batch_size * 4, num_workers=4)
