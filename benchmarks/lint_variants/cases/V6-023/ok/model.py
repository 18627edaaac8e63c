import torch.nn as nn


class LSTMForecaster(nn.Module):
    def __init__(self, n_features, horizon, hidden_size=128, num_layers=2, dropout=0.2):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden_size, num_layers, batch_first=True, dropout=dropout)
        self.fc = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.ReLU(), nn.Linear(hidden_size, horizon))

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])
