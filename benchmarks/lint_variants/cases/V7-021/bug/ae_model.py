import torch
import torch.nn as nn


class LSTMEncoder(nn.Module):
    def __init__(self, n_features: int, hidden: int = 64, latent: int = 16, num_layers: int = 2,
                 dropout: float = 0.1):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, num_layers=num_layers, batch_first=True, dropout=dropout)
        self.to_latent = nn.Linear(hidden, latent)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return self.to_latent(h[-1])


class LSTMDecoder(nn.Module):
    def __init__(self, n_features: int, seq_len: int, hidden: int = 64, latent: int = 16, num_layers: int = 2,
                 dropout: float = 0.1):
        super().__init__()
        self.seq_len = seq_len
        self.from_latent = nn.Linear(latent, hidden)
        self.lstm = nn.LSTM(hidden, hidden, num_layers=num_layers, batch_first=True, dropout=dropout)
        self.out = nn.Linear(hidden, n_features)

    def forward(self, z):
        h = self.from_latent(z).unsqueeze(1).repeat(1, self.seq_len, 1)
        y, _ = self.lstm(h)
        return self.out(y)


class LSTMAutoencoder(nn.Module):
    def __init__(self, n_features: int, seq_len: int, hidden: int = 64, latent: int = 16, num_layers: int = 2,
                 dropout: float = 0.1):
        super().__init__()
        self.encoder = LSTMEncoder(n_features, hidden, latent, num_layers, dropout)
        self.decoder = LSTMDecoder(n_features, seq_len, hidden, latent, num_layers, dropout)

    def forward(self, x):
        return self.decoder(self.encoder(x))

    @torch.no_grad()
    def reconstruction_error(self, x, reduce_features: bool = True):
        self.eval()
        err = (self(x) - x) ** 2
        return err.mean(dim=(1, 2)) if reduce_features else err.mean(dim=1)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def save_model(model: nn.Module, path: str, **meta) -> None:
    torch.save({"state_dict": model.state_dict(), **meta}, path)


def load_model(path: str, map_location="cpu") -> LSTMAutoencoder:
    ckpt = torch.load(path, map_location=map_location)
    model = LSTMAutoencoder(ckpt["n_features"], ckpt["seq_len"], ckpt.get("hidden", 64), ckpt.get("latent", 16))
    model.load_state_dict(ckpt["state_dict"])
    return model.eval()
