"""DDPM eps-prediction (Ho et al. 2020) as in tanelp/tiny-diffusion ddpm.py on its 'moons' data: MLP with sinusoidal input (scale 25) and time embeddings and GELU residual blocks, linear beta schedule 1e-4..0.02 over 1000 steps (NoiseScheduler's default, as in Ho et al.; the script's CLI uses 50), a random timestep and fresh Gaussian noise per sample on every call, MSE on the noise, AdamW lr 1e-3 with clip_grad_norm_(1.0) and zero_grad after the step."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

NUM_TIMESTEPS = 1000
EMBEDDING_SIZE = 32
HIDDEN_SIZE = 64
HIDDEN_LAYERS = 3
COUNT = 64


class SinusoidalEmbedding(nn.Module):
    def __init__(self, size: int, scale: float = 1.0):
        super().__init__()
        self.size = size
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * self.scale
        half_size = self.size // 2
        emb = math.log(10000.0) / (half_size - 1)
        emb = torch.exp(-emb * torch.arange(half_size, device=x.device))
        emb = x.unsqueeze(-1) * emb.unsqueeze(0)
        return torch.cat((torch.sin(emb), torch.cos(emb)), dim=-1)


class Block(nn.Module):
    def __init__(self, size: int):
        super().__init__()
        self.ff = nn.Linear(size, size)
        self.act = nn.GELU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.act(self.ff(x))


class MLP(nn.Module):
    """The denoiser eps_theta(x_t, t)."""

    def __init__(self, hidden_size: int = HIDDEN_SIZE, hidden_layers: int = HIDDEN_LAYERS, emb_size: int = EMBEDDING_SIZE):
        super().__init__()
        self.time_mlp = SinusoidalEmbedding(emb_size)
        self.input_mlp1 = SinusoidalEmbedding(emb_size, scale=25.0)
        self.input_mlp2 = SinusoidalEmbedding(emb_size, scale=25.0)
        concat_size = 3 * emb_size
        layers = [nn.Linear(concat_size, hidden_size), nn.GELU()]
        for _ in range(hidden_layers):
            layers.append(Block(hidden_size))
        layers.append(nn.Linear(hidden_size, 2))
        self.joint_mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        x1_emb = self.input_mlp1(x[:, 0])
        x2_emb = self.input_mlp2(x[:, 1])
        t_emb = self.time_mlp(t.float())
        return self.joint_mlp(torch.cat((x1_emb, x2_emb, t_emb), dim=-1))


class GaussianDiffusion(nn.Module):
    """Noise scheduler plus denoiser. forward(x0) draws t ~ U{0..T-1} and eps ~ N(0, I) for every sample
    (in train and eval mode alike), builds x_t = sqrt(abar_t) x0 + sqrt(1 - abar_t) eps and returns
    (eps_theta(x_t, t), eps)."""

    def __init__(self, num_timesteps: int = NUM_TIMESTEPS, beta_start: float = 0.0001, beta_end: float = 0.02):
        super().__init__()
        self.num_timesteps = num_timesteps
        self.model = MLP()
        betas = torch.linspace(beta_start, beta_end, num_timesteps, dtype=torch.float32)
        alphas = 1.0 - betas
        alphas_cumprod = torch.cumprod(alphas, dim=0)
        self.register_buffer("betas", betas)
        self.register_buffer("alphas", alphas)
        self.register_buffer("alphas_cumprod", alphas_cumprod)
        self.register_buffer("sqrt_alphas_cumprod", alphas_cumprod.sqrt())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1 - alphas_cumprod).sqrt())

    def add_noise(self, x_start: torch.Tensor, x_noise: torch.Tensor, timesteps: torch.Tensor) -> torch.Tensor:
        s1 = self.sqrt_alphas_cumprod[timesteps].reshape(-1, 1)
        s2 = self.sqrt_one_minus_alphas_cumprod[timesteps].reshape(-1, 1)
        return s1 * x_start + s2 * x_noise

    def forward(self, x0: torch.Tensor):
        noise = torch.randn_like(x0)
        timesteps = torch.randint(0, self.num_timesteps, (x0.shape[0],), device=x0.device).long()
        noisy = self.add_noise(x0, noise, timesteps)
        noise_pred = self.model(noisy, timesteps)
        return noise_pred, noise

    @torch.no_grad()
    def sample(self, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
        """Ancestral sampling (tiny-diffusion's NoiseScheduler.step), used only to inspect the model."""
        x = torch.randn(n, 2, generator=generator)
        for t in reversed(range(self.num_timesteps)):
            tt = torch.full((n,), t, dtype=torch.long)
            eps = self.model(x, tt)
            s1 = 1.0 / self.alphas[t].sqrt()
            s2 = self.betas[t] / self.sqrt_one_minus_alphas_cumprod[t]
            x = s1 * (x - s2 * eps)
            if t > 0:
                var = self.betas[t] * (1.0 - self.alphas_cumprod[t - 1]) / (1.0 - self.alphas_cumprod[t])
                x = x + var.clamp(min=1e-20).sqrt() * torch.randn(n, 2, generator=generator)
        return x


def make_moons(gen: torch.Generator, n: int, noise: float = 0.03) -> torch.Tensor:
    """sklearn.datasets.make_moons rescaled as in tiny-diffusion's datasets.moons_dataset."""
    n_out = n // 2
    n_in = n - n_out
    a = torch.linspace(0, math.pi, n_out)
    b = torch.linspace(0, math.pi, n_in)
    outer = torch.stack([a.cos(), a.sin()], dim=1)
    inner = torch.stack([1 - b.cos(), 1 - b.sin() - 0.5], dim=1)
    x = torch.cat([outer, inner])
    x = x + noise * torch.randn(x.shape, generator=gen)
    x = x[torch.randperm(n, generator=gen)]
    x[:, 0] = (x[:, 0] + 0.3) * 2 - 1
    x[:, 1] = (x[:, 1] + 0.3) * 3 - 1
    return x


def noise_mse(outputs, _targets=None) -> torch.Tensor:
    noise_pred, noise = outputs
    return F.mse_loss(noise_pred, noise)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.AdamW(params, lr=1e-3)


def train_step(model: GaussianDiffusion, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    """tiny-diffusion's loop body: backward, clip to norm 1, step, then zero_grad."""
    x0, _ = batch
    noise_pred, noise = model(x0)
    loss = F.mse_loss(noise_pred, noise)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
    return loss.detach()


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x0 = make_moons(gen, COUNT)
    spec = {
        "model": GaussianDiffusion(),
        "batch": (x0, None),
        "loss_fn": noise_mse,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
