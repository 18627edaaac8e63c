import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl


def down(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 4, 2, 1), nn.BatchNorm2d(o), nn.LeakyReLU(0.2))


def up(i, o):
    return nn.Sequential(nn.ConvTranspose2d(i, o, 4, 2, 1), nn.BatchNorm2d(o), nn.ReLU())


class VAE(pl.LightningModule):
    def __init__(self, latent_dim=128, lr=1e-3, kl_coeff=0.1):
        super().__init__()
        self.save_hyperparameters()
        self.encoder = nn.Sequential(down(3, 32), down(32, 64), down(64, 128), nn.Flatten())
        self.fc_mu = nn.Linear(128 * 4 * 4, latent_dim)
        self.fc_var = nn.Linear(128 * 4 * 4, latent_dim)
        self.decoder_input = nn.Linear(latent_dim, 128 * 4 * 4)
        self.decoder = nn.Sequential(up(128, 64), up(64, 32), nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Tanh())

    def encode(self, x):
        h = self.encoder(x)
        return self.fc_mu(h), self.fc_var(h)

    def decode(self, z):
        return self.decoder(self.decoder_input(z).view(-1, 128, 4, 4))

    def forward(self, x):
        mu, log_var = self.encode(x)
        std = torch.exp(0.5 * log_var)
        z = mu + std * torch.randn_like(std)
        return self.decode(z), mu, log_var

    def step(self, batch):
        x, _ = batch
        x_hat, mu, log_var = self(x)
        recon = F.mse_loss(x_hat, x, reduction="mean")
        kl = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1))
        return recon + self.hparams.kl_coeff * kl, recon, kl

    def training_step(self, batch, batch_idx):
        loss, recon, kl = self.step(batch)
        self.log_dict({"train_loss": loss, "recon": recon, "kl": kl}, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        loss, _, _ = self.step(batch)
        self.log("val_loss", loss, prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
