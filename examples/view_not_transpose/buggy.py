"""Train an LSTM to tell three kinds of noisy sensor signal apart by their frequency.

Symptom: accuracy stays near chance, and the prediction for one recording changes
when the other recordings in its batch change.
"""

import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 3
SEQ_LEN = 24
NUM_CHANNELS = 2


def make_data(n, seed):
    """Sine waves of one of three frequencies, random phase, plus a pure-noise channel."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    freq = 0.3 + 0.4 * y.float()
    phase = torch.rand(n, generator=g) * 2 * math.pi
    t = torch.arange(SEQ_LEN).float()
    wave = torch.sin(freq[:, None] * t[None, :] + phase[:, None])
    noise = 0.3 * torch.randn(n, SEQ_LEN, NUM_CHANNELS, generator=g)
    x = torch.stack([wave, torch.zeros_like(wave)], dim=-1) + noise
    return x, y


class SignalClassifier(nn.Module):
    """Per-step projection, a time-major LSTM, and a linear head on the time-averaged output."""

    def __init__(self, hidden=32):
        super().__init__()
        self.proj = nn.Linear(NUM_CHANNELS, hidden)
        self.lstm = nn.LSTM(hidden, hidden)  # expects (T, B, H)
        self.head = nn.Linear(hidden, NUM_CLASSES)

    def forward(self, x):
        h = self.proj(x)  # (B, T, H)
        B, T, H = h.shape
        h = h.view(T, B, H)  # BUG: view keeps memory order, so time steps of different samples mix
        out, _ = self.lstm(h)
        return self.head(out.mean(dim=0))


def debug_spec():
    torch.manual_seed(0)
    return {
        "model": SignalClassifier(),
        "batch": make_data(32, seed=1),
        "val_batch": make_data(32, seed=2),
        "loss_fn": nn.CrossEntropyLoss(),
        "optimizer": lambda params: torch.optim.Adam(params, lr=3e-3),
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "seq_dim": 1,
    }


def main():
    torch.manual_seed(0)
    train_loader = DataLoader(TensorDataset(*make_data(1024, seed=1)), batch_size=32, shuffle=True)
    val_x, val_y = make_data(256, seed=2)
    model = SignalClassifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(6):
        model.train()
        total = 0.0
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        model.eval()
        with torch.no_grad():
            accuracy = (model(val_x).argmax(dim=1) == val_y).float().mean().item()
        print(f"epoch {epoch}: loss {total / len(train_loader):.4f}  val acc {accuracy:.3f}")


if __name__ == "__main__":
    main()
