import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvEncoder(nn.Module):
    def __init__(self, vocab_size: int, max_len: int, latent_dim: int = 56):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(vocab_size, 9, kernel_size=9), nn.ReLU(),
            nn.Conv1d(9, 9, kernel_size=9), nn.ReLU(),
            nn.Conv1d(9, 10, kernel_size=11), nn.ReLU(),
        )
        conv_out = 10 * (max_len - 8 - 8 - 10)
        self.fc = nn.Sequential(nn.Linear(conv_out, 435), nn.SELU())
        self.mu = nn.Linear(435, latent_dim)
        self.logvar = nn.Linear(435, latent_dim)

    def forward(self, x_onehot: torch.Tensor):
        h = self.conv(x_onehot.transpose(1, 2)).flatten(1)
        h = self.fc(h)
        return self.mu(h), self.logvar(h)


class GRUDecoder(nn.Module):
    def __init__(self, vocab_size: int, max_len: int, latent_dim: int = 56, hidden: int = 488, layers: int = 3):
        super().__init__()
        self.max_len = max_len
        self.latent_to_input = nn.Sequential(nn.Linear(latent_dim, latent_dim), nn.SELU())
        self.gru = nn.GRU(latent_dim, hidden, num_layers=layers, batch_first=True)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        x = self.latent_to_input(z).unsqueeze(1).repeat(1, self.max_len, 1)
        h, _ = self.gru(x)
        return F.softmax(self.out(h), dim=-1)


class PropertyPredictor(nn.Module):
    def __init__(self, latent_dim: int = 56, n_props: int = 3, hidden: int = 67, dropout: float = 0.15):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, hidden), nn.Tanh(), nn.Dropout(dropout),
                                 nn.Linear(hidden, hidden), nn.Tanh(), nn.Dropout(dropout),
                                 nn.Linear(hidden, n_props))

    def forward(self, z):
        return self.net(z)


class MoleculeVAE(nn.Module):
    """Character-level SMILES VAE with a joint property head (Gomez-Bombarelli et al. 2018)."""

    def __init__(self, vocab_size: int, max_len: int = 120, latent_dim: int = 56, n_props: int = 3):
        super().__init__()
        self.encoder = ConvEncoder(vocab_size, max_len, latent_dim)
        self.decoder = GRUDecoder(vocab_size, max_len, latent_dim)
        self.property_head = PropertyPredictor(latent_dim, n_props)

    @staticmethod
    def reparameterize(mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std

    def forward(self, x_onehot):
        mu, logvar = self.encoder(x_onehot)
        z = self.reparameterize(mu, logvar) if self.training else mu
        return self.decoder(z), self.property_head(z), mu, logvar

    @torch.no_grad()
    def sample(self, n: int, device) -> torch.Tensor:
        z = torch.randn(n, self.encoder.mu.out_features, device=device)
        return self.decoder(z).argmax(-1)
