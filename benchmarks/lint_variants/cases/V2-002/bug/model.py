import torch
import torch.nn as nn


class LSTMForecaster(nn.Module):
    def __init__(self, n_features, hidden_size=64, num_layers=2, horizon=24, dropout=0.1):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden_size, num_layers=num_layers,
                            batch_first=True, dropout=dropout)
        self.head = nn.Sequential(
            nn.Linear(hidden_size, hidden_size),
            nn.GELU(),
            nn.Linear(hidden_size, horizon),
        )

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])
