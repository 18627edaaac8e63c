import torch
import torch.nn as nn


class LSTMForecaster(nn.Module):
    def __init__(self, n_features, hidden_size=64, num_layers=2, horizon=24, dropout=0.1):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden_size, num_layers=num_layers, dropout=dropout)
        self.fc = nn.Linear(hidden_size, horizon)

    def forward(self, x):
        # x: (batch, seq_len, n_features)
        x = x.transpose(0, 1)
        out, _ = self.lstm(x)
        return self.fc(out[-1])
