import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def cosine_beta_schedule(timesteps, s=0.008):
    steps = timesteps + 1
    t = torch.linspace(0, timesteps, steps, dtype=torch.float64) / timesteps
    alphas_cumprod = torch.cos((t + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0, 0.999)


def extract(a, t, x_shape):
    out = a.gather(-1, t)
    return out.reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))


class GaussianDiffusion(nn.Module):
    def __init__(self, model, image_size, timesteps=1000, sampling_timesteps=250, objective="pred_noise"):
        super().__init__()
        self.model = model
        self.channels = model.channels
        self.image_size = image_size
        self.objective = objective
        self.num_timesteps = timesteps
        self.sampling_timesteps = sampling_timesteps
        betas = cosine_beta_schedule(timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        reg = lambda name, val: self.register_buffer(name, val.to(torch.float32))
        reg("betas", betas)
        reg("alphas_cumprod", alphas_cumprod)
        reg("sqrt_alphas_cumprod", torch.sqrt(alphas_cumprod))
        reg("sqrt_one_minus_alphas_cumprod", torch.sqrt(1.0 - alphas_cumprod))
        snr = alphas_cumprod / (1 - alphas_cumprod)
        reg("loss_weight", snr.clamp(max=5.0) / snr if objective == "pred_noise" else snr.clamp(max=5.0))

    def q_sample(self, x_start, t, noise):
        return (extract(self.sqrt_alphas_cumprod, t, x_start.shape) * x_start
                + extract(self.sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise)

    def p_losses(self, x_start, t):
        noise = torch.randn_like(x_start)
        x = self.q_sample(x_start, t, noise)
        model_out = self.model(x, t)
        target = noise if self.objective == "pred_noise" else x_start
        loss = F.mse_loss(model_out, target, reduction="none").mean(dim=(1, 2, 3))
        return (loss * extract(self.loss_weight, t, loss.shape)).mean()

    def forward(self, img):
        b = img.shape[0]
        t = torch.randint(0, self.num_timesteps, (b,), device=img.device).long()
        return self.p_losses(img * 2 - 1, t)

    @torch.inference_mode()
    def ddim_sample(self, batch_size=16, eta=0.0):
        device = self.betas.device
        times = torch.linspace(-1, self.num_timesteps - 1, steps=self.sampling_timesteps + 1).int().tolist()
        time_pairs = list(zip(reversed(times[:-1]), reversed(times[1:])))
        img = torch.randn(batch_size, self.channels, self.image_size, self.image_size, device=device)
        for time, time_next in time_pairs:
            t = torch.full((batch_size,), time, device=device, dtype=torch.long)
            pred_noise = self.model(img, t)
            alpha = self.alphas_cumprod[time]
            x_start = ((img - (1 - alpha).sqrt() * pred_noise) / alpha.sqrt()).clamp(-1, 1)
            if time_next < 0:
                img = x_start
                continue
            alpha_next = self.alphas_cumprod[time_next]
            sigma = eta * ((1 - alpha / alpha_next) * (1 - alpha_next) / (1 - alpha)).sqrt()
            c = (1 - alpha_next - sigma ** 2).sqrt()
            img = x_start * alpha_next.sqrt() + c * pred_noise + sigma * torch.randn_like(img)
        return (img + 1) * 0.5
