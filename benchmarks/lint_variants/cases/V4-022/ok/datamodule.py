import numpy as np
import pandas as pd
import pytorch_lightning as pl
import torch
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset

NUMERIC = ["age", "trestbps", "chol", "thalach", "oldpeak"]
CATEGORICAL = ["sex", "cp", "fbs", "restecg", "exang", "slope", "ca", "thal"]


class HeartDataModule(pl.LightningDataModule):
    def __init__(self, csv_path="heart.csv", batch_size=64, val_size=0.2, seed=42):
        super().__init__()
        self.csv_path = csv_path
        self.batch_size = batch_size
        self.val_size = val_size
        self.seed = seed
        self.scaler = StandardScaler()

    def setup(self, stage=None):
        df = pd.read_csv(self.csv_path)
        y = df.pop("target").values.astype(np.float32)
        cats = pd.get_dummies(df[CATEGORICAL].astype(str)).values.astype(np.float32)
        X = np.concatenate([df[NUMERIC].values.astype(np.float32), cats], axis=1)
        X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=self.val_size,
                                                  stratify=y, random_state=self.seed)
        k = len(NUMERIC)
        X_tr[:, :k] = self.scaler.fit_transform(X_tr[:, :k])
        X_va[:, :k] = self.scaler.transform(X_va[:, :k])
        self.n_features = X.shape[1]
        self.train_ds = TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr))
        self.val_ds = TensorDataset(torch.from_numpy(X_va), torch.from_numpy(y_va))

    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_ds, batch_size=256)
