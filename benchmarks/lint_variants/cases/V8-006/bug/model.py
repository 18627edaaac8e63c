import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvEncoder(nn.Module):
    def __init__(self, vocab_size, max_len, latent_dim=196):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(vocab_size, 9, 9), nn.ReLU(),
            nn.Conv1d(9, 9, 9), nn.ReLU(),
            nn.Conv1d(9, 10, 11), nn.ReLU(),
        )
        conv_out = 10 * (max_len - 26)
        self.fc = nn.Sequential(nn.Linear(conv_out, 435), nn.SELU())
        self.mu = nn.Linear(435, latent_dim)
        self.logvar = nn.Linear(435, latent_dim)

    def forward(self, x_onehot):
        h = self.conv(x_onehot.transpose(1, 2)).flatten(1)
        h = self.fc(h)
        return self.mu(h), self.logvar(h)


class GRUDecoder(nn.Module):
    def __init__(self, vocab_size, max_len, latent_dim=196, hidden=488, layers=3):
        super().__init__()
        self.max_len = max_len
        self.latent_in = nn.Sequential(nn.Linear(latent_dim, latent_dim), nn.SELU())
        self.gru = nn.GRU(latent_dim + vocab_size, hidden, num_layers=layers, batch_first=True)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, z, teacher_onehot):
        z = self.latent_in(z)
        prev = torch.cat([torch.zeros_like(teacher_onehot[:, :1]), teacher_onehot[:, :-1]], dim=1)
        inp = torch.cat([z.unsqueeze(1).expand(-1, prev.size(1), -1), prev], dim=-1)
        h, _ = self.gru(inp)
        return F.softmax(self.out(h), dim=-1)


class MoleculeVAE(nn.Module):
    def __init__(self, vocab_size, max_len=120, latent_dim=196):
        super().__init__()
        self.vocab_size = vocab_size
        self.encoder = ConvEncoder(vocab_size, max_len, latent_dim)
        self.decoder = GRUDecoder(vocab_size, max_len, latent_dim)

    @staticmethod
    def reparameterize(mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std

    def forward(self, x_onehot):
        mu, logvar = self.encoder(x_onehot)
        z = self.reparameterize(mu, logvar) if self.training else mu
        probs = self.decoder(z, x_onehot)
        return probs, mu, logvar

    @torch.no_grad()
    def sample(self, n, device, sos_idx=1):
        z = torch.randn(n, self.decoder.latent_in[0].in_features, device=device)
        tokens = torch.full((n, 1), sos_idx, dtype=torch.long, device=device)
        for _ in range(self.decoder.max_len - 1):
            onehot = F.one_hot(tokens, self.vocab_size).float()
            probs = self.decoder(z, torch.cat([onehot, onehot[:, -1:]], dim=1))
            nxt = torch.multinomial(probs[:, -1], 1)
            tokens = torch.cat([tokens, nxt], dim=1)
        return tokens
