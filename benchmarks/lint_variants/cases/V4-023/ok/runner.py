import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from preprocessing import prepare_data, inverse_close


class GRUNet(nn.Module):
    def __init__(self, n_features, hidden=128, layers=2, dropout=0.2):
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, layers, batch_first=True, dropout=dropout)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.gru(x)
        return self.out(h[:, -1]).squeeze(-1)


class Runner:
    def __init__(self, csv_path, lookback=60, batch_size=64, lr=1e-3, epochs=50):
        X_tr, y_tr, X_te, y_te, self.scaler = prepare_data(csv_path, lookback=lookback)
        self.n_features = X_tr.shape[-1]
        self.train_loader = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)),
                                       batch_size=batch_size, shuffle=True)
        self.test_loader = DataLoader(TensorDataset(torch.from_numpy(X_te), torch.from_numpy(y_te)),
                                      batch_size=256)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = GRUNet(self.n_features).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.criterion = nn.MSELoss()
        self.epochs = epochs

    def train_epoch(self):
        self.model.train()
        losses = []
        for xb, yb in self.train_loader:
            xb, yb = xb.to(self.device), yb.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(xb), yb)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            losses.append(loss.item())
        return float(np.mean(losses))

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        preds, targets = [], []
        for xb, yb in self.test_loader:
            preds.append(self.model(xb.to(self.device)).cpu().numpy())
            targets.append(yb.numpy())
        p = inverse_close(self.scaler, np.concatenate(preds), self.n_features)
        t = inverse_close(self.scaler, np.concatenate(targets), self.n_features)
        return float(np.sqrt(np.mean((p - t) ** 2))), float(np.mean(np.abs(p - t) / np.abs(t)) * 100)

    def run(self):
        for epoch in range(1, self.epochs + 1):
            tr = self.train_epoch()
            rmse, mape = self.validate()
            print(f"Epoch {epoch:03d} | train mse {tr:.6f} | test RMSE {rmse:.2f} | MAPE {mape:.2f}%")
        torch.save(self.model.state_dict(), "gru_stock.pt")


if __name__ == "__main__":
    Runner("data/AAPL.csv").run()
