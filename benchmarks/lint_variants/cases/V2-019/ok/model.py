import torch
import torch.nn as nn


class AttentionPool(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.score = nn.Linear(hidden, 1)

    def forward(self, h, mask=None):
        # h: (B, T, H)
        w = self.score(h).squeeze(-1)
        if mask is not None:
            w = w.masked_fill(~mask, float("-inf"))
        w = torch.softmax(w, dim=1)
        return torch.bmm(w.unsqueeze(1), h).squeeze(1)


class HARNet(nn.Module):
    """GRU + attention pooling for human activity recognition from IMU windows."""

    def __init__(self, n_channels=9, hidden=128, n_layers=2, n_classes=6, dropout=0.2):
        super().__init__()
        self.input_proj = nn.Linear(n_channels, hidden)
        self.gru = nn.GRU(hidden, hidden, num_layers=n_layers, dropout=dropout, bidirectional=True)
        self.pool = AttentionPool(2 * hidden)
        self.fc = nn.Sequential(nn.Dropout(dropout), nn.Linear(2 * hidden, n_classes))

    def forward(self, x):
        # x: (B, T, C) -> GRU expects (T, B, *)
        batch_size, seq_len, _ = x.shape
        x = self.input_proj(x).transpose(0, 1)
        out, _ = self.gru(x)                                 # (T, B, 2H)
        out = out.transpose(0, 1).contiguous()               # (B, T, 2H)
        return self.fc(self.pool(out))
