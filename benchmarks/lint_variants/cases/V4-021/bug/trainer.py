from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, random_split

from featurize import FingerprintDataset


@dataclass
class TrainConfig:
    csv_path: str = "data/esol.csv"
    n_bits: int = 2048
    hidden: int = 512
    dropout: float = 0.2
    batch_size: int = 32
    lr: float = 1e-3
    epochs: int = 100
    patience: int = 15
    seed: int = 0


class Trainer:
    def __init__(self, cfg: TrainConfig):
        self.cfg = cfg
        torch.manual_seed(cfg.seed)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        ds = FingerprintDataset(cfg.csv_path, n_bits=cfg.n_bits)
        n_val = int(0.1 * len(ds))
        n_test = int(0.1 * len(ds))
        train_ds, val_ds, self.test_ds = random_split(ds, [len(ds) - n_val - n_test, n_val, n_test])
        self.train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True)
        self.val_loader = DataLoader(val_ds, batch_size=cfg.batch_size)
        self.model = nn.Sequential(
            nn.Linear(cfg.n_bits, cfg.hidden), nn.ReLU(), nn.Dropout(cfg.dropout),
            nn.Linear(cfg.hidden, cfg.hidden // 2), nn.ReLU(), nn.Dropout(cfg.dropout),
            nn.Linear(cfg.hidden // 2, 1),
        ).to(self.device)
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            pred = self.model(x).squeeze()
            loss = self.criterion(pred, y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item() * len(y)
        return total / len(self.train_loader.dataset)

    @torch.no_grad()
    def validate(self, loader=None):
        self.model.eval()
        loader = loader or self.val_loader
        se, n = 0.0, 0
        for x, y in loader:
            pred = self.model(x.to(self.device)).squeeze(-1)
            se += ((pred - y.to(self.device)) ** 2).sum().item()
            n += len(y)
        return (se / n) ** 0.5

    def fit(self):
        best, bad = float("inf"), 0
        for epoch in range(self.cfg.epochs):
            tr = self.train_epoch()
            rmse = self.validate()
            print(f"epoch {epoch:3d}  train mse {tr:.4f}  val rmse {rmse:.4f}")
            if rmse < best:
                best, bad = rmse, 0
                torch.save(self.model.state_dict(), "best_fp_mlp.pt")
            else:
                bad += 1
                if bad >= self.cfg.patience:
                    break
        self.model.load_state_dict(torch.load("best_fp_mlp.pt"))
        return self.validate(DataLoader(self.test_ds, batch_size=256))


if __name__ == "__main__":
    print("test rmse", Trainer(TrainConfig()).fit())
