"""VQ-VAE (van den Oord et al. 2017) as in deepmind/sonnet's vqvae_example (ported as zalandoresearch/pytorch-vq-vae): conv encoder (two 4x4 stride-2 convs, 3x3 conv, residual stack), 1x1 pre-VQ conv, nearest-code quantiser with straight-through estimator and commitment loss (beta 0.25), codebook kept by exponential moving averages (vq_use_ema=True, decay 0.99, Laplace smoothing), mirrored decoder with transposed convs, loss = MSE(recon, x) / data_variance + vq_loss; Adam lr 3e-4."""

from __future__ import annotations

import math
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

IMG_SIZE = 16
NUM_HIDDENS = 32  # 128 in the notebook
NUM_RESIDUAL_HIDDENS = 8  # 32
NUM_RESIDUAL_LAYERS = 2
EMBEDDING_DIM = 16  # 64
NUM_EMBEDDINGS = 64  # 512
COMMITMENT_COST = 0.25
DECAY = 0.99
COUNT = 32


class VectorQuantizer(nn.Module):
    """The vq_use_ema=False quantiser (codebook learnt by gradient through the codebook loss); not used by
    debug_spec, kept for reference: in this small form its codebook lags the encoder and the loss spikes."""

    def __init__(self, num_embeddings: int, embedding_dim: int, commitment_cost: float):
        super().__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(num_embeddings, embedding_dim)
        self._embedding.weight.data.uniform_(-1 / num_embeddings, 1 / num_embeddings)
        self._commitment_cost = commitment_cost

    def forward(self, inputs: torch.Tensor):
        inputs = inputs.permute(0, 2, 3, 1).contiguous()  # BCHW -> BHWC
        input_shape = inputs.shape
        flat_input = inputs.view(-1, self._embedding_dim)
        distances = (torch.sum(flat_input ** 2, dim=1, keepdim=True)
                     + torch.sum(self._embedding.weight ** 2, dim=1)
                     - 2 * torch.matmul(flat_input, self._embedding.weight.t()))
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)
        quantized = torch.matmul(encodings, self._embedding.weight).view(input_shape)
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)  # commitment: pulls the encoder to its code
        q_latent_loss = F.mse_loss(quantized, inputs.detach())  # codebook: pulls the codes to the encoder
        loss = q_latent_loss + self._commitment_cost * e_latent_loss
        quantized = inputs + (quantized - inputs).detach()  # straight-through estimator
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class VectorQuantizerEMA(nn.Module):
    """sonnet.nets.VectorQuantizerEMA: codebook (VarianceScaling-uniform init, not trainable) set in forward,
    in training mode, to the zero-debiased exponential moving averages (decay 0.99) of the encoder outputs
    assigned to each code, with Laplace-smoothed cluster sizes (paper appendix A.1); loss = commitment term."""

    def __init__(self, embedding_dim: int, num_embeddings: int, commitment_cost: float, decay: float, epsilon: float = 1e-5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.num_embeddings = num_embeddings
        self.commitment_cost = commitment_cost
        self.decay = decay
        self.epsilon = epsilon
        limit = math.sqrt(3.0 / embedding_dim)  # VarianceScaling(scale=1, mode="fan_in", distribution="uniform")
        embeddings = torch.empty(embedding_dim, num_embeddings).uniform_(-limit, limit)
        self.register_buffer("embeddings", embeddings)
        self.register_buffer("ema_cluster_size_hidden", torch.zeros(num_embeddings))
        self.register_buffer("ema_dw_hidden", torch.zeros(embedding_dim, num_embeddings))
        self.register_buffer("counter", torch.zeros((), dtype=torch.long))

    def forward(self, inputs: torch.Tensor):
        inputs = inputs.permute(0, 2, 3, 1).contiguous()  # BCHW -> BHWC
        input_shape = inputs.shape
        flat_inputs = inputs.view(-1, self.embedding_dim)
        distances = (torch.sum(flat_inputs ** 2, dim=1, keepdim=True)
                     - 2 * torch.matmul(flat_inputs, self.embeddings)
                     + torch.sum(self.embeddings ** 2, dim=0, keepdim=True))
        encoding_indices = torch.argmax(-distances, dim=1)
        encodings = F.one_hot(encoding_indices, self.num_embeddings).type(flat_inputs.dtype)
        quantized = F.embedding(encoding_indices, self.embeddings.t()).view(input_shape)
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        if self.training:
            with torch.no_grad():
                self.counter += 1
                debias = 1.0 - self.decay ** self.counter.item()
                self.ema_cluster_size_hidden.sub_((self.ema_cluster_size_hidden - encodings.sum(0)) * (1 - self.decay))
                self.ema_dw_hidden.sub_((self.ema_dw_hidden - flat_inputs.t() @ encodings) * (1 - self.decay))
                cluster_size = self.ema_cluster_size_hidden / debias
                dw = self.ema_dw_hidden / debias
                n = cluster_size.sum()
                cluster_size = (cluster_size + self.epsilon) / (n + self.num_embeddings * self.epsilon) * n
                self.embeddings.copy_(dw / cluster_size.view(1, -1))
        loss = self.commitment_cost * e_latent_loss
        quantized = inputs + (quantized - inputs).detach()  # straight-through estimator
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class Residual(nn.Module):
    def __init__(self, in_channels: int, num_hiddens: int, num_residual_hiddens: int):
        super().__init__()
        self._block = nn.Sequential(
            nn.ReLU(True),
            nn.Conv2d(in_channels, num_residual_hiddens, kernel_size=3, stride=1, padding=1, bias=False),
            nn.ReLU(True),
            nn.Conv2d(num_residual_hiddens, num_hiddens, kernel_size=1, stride=1, bias=False),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self._block(x)


class ResidualStack(nn.Module):
    def __init__(self, in_channels: int, num_hiddens: int, num_residual_layers: int, num_residual_hiddens: int):
        super().__init__()
        self._layers = nn.ModuleList([Residual(in_channels, num_hiddens, num_residual_hiddens) for _ in range(num_residual_layers)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self._layers:
            x = layer(x)
        return F.relu(x)


class Encoder(nn.Module):
    def __init__(self, in_channels: int, num_hiddens: int, num_residual_layers: int, num_residual_hiddens: int):
        super().__init__()
        self._conv_1 = nn.Conv2d(in_channels, num_hiddens // 2, kernel_size=4, stride=2, padding=1)
        self._conv_2 = nn.Conv2d(num_hiddens // 2, num_hiddens, kernel_size=4, stride=2, padding=1)
        self._conv_3 = nn.Conv2d(num_hiddens, num_hiddens, kernel_size=3, stride=1, padding=1)
        self._residual_stack = ResidualStack(num_hiddens, num_hiddens, num_residual_layers, num_residual_hiddens)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        x = F.relu(self._conv_1(inputs))
        x = F.relu(self._conv_2(x))
        x = self._conv_3(x)
        return self._residual_stack(x)


class Decoder(nn.Module):
    def __init__(self, in_channels: int, num_hiddens: int, num_residual_layers: int, num_residual_hiddens: int):
        super().__init__()
        self._conv_1 = nn.Conv2d(in_channels, num_hiddens, kernel_size=3, stride=1, padding=1)
        self._residual_stack = ResidualStack(num_hiddens, num_hiddens, num_residual_layers, num_residual_hiddens)
        self._conv_trans_1 = nn.ConvTranspose2d(num_hiddens, num_hiddens // 2, kernel_size=4, stride=2, padding=1)
        self._conv_trans_2 = nn.ConvTranspose2d(num_hiddens // 2, 3, kernel_size=4, stride=2, padding=1)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        x = self._conv_1(inputs)
        x = self._residual_stack(x)
        x = F.relu(self._conv_trans_1(x))
        return self._conv_trans_2(x)


class Model(nn.Module):
    """forward(x) -> (vq_loss, x_recon, perplexity)."""

    def __init__(self):
        super().__init__()
        self._encoder = Encoder(3, NUM_HIDDENS, NUM_RESIDUAL_LAYERS, NUM_RESIDUAL_HIDDENS)
        self._pre_vq_conv = nn.Conv2d(NUM_HIDDENS, EMBEDDING_DIM, kernel_size=1, stride=1)
        if DECAY > 0.0:
            self._vq_vae = VectorQuantizerEMA(EMBEDDING_DIM, NUM_EMBEDDINGS, COMMITMENT_COST, DECAY)
        else:
            self._vq_vae = VectorQuantizer(NUM_EMBEDDINGS, EMBEDDING_DIM, COMMITMENT_COST)
        self._decoder = Decoder(EMBEDDING_DIM, NUM_HIDDENS, NUM_RESIDUAL_LAYERS, NUM_RESIDUAL_HIDDENS)

    def forward(self, x: torch.Tensor):
        z = self._pre_vq_conv(self._encoder(x))
        loss, quantized, perplexity, _ = self._vq_vae(z)
        x_recon = self._decoder(quantized)
        return loss, x_recon, perplexity


def make_images(gen: torch.Generator, n: int) -> torch.Tensor:
    """Smooth colour images in [0, 1] (random base colour, colour ramp, one soft disc), a stand-in for CIFAR-10."""
    base = 0.2 + 0.6 * torch.rand(n, 3, generator=gen)
    ramp = 0.3 * (2 * torch.rand(n, 3, generator=gen) - 1)
    theta = torch.rand(n, generator=gen) * 2 * math.pi
    disc_color = torch.rand(n, 3, generator=gen)
    center = 0.6 * (2 * torch.rand(n, 2, generator=gen) - 1)
    radius = 0.25 + 0.3 * torch.rand(n, generator=gen)
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, IMG_SIZE), torch.linspace(-1, 1, IMG_SIZE), indexing="ij")
    u = xs[None] * theta.cos()[:, None, None] + ys[None] * theta.sin()[:, None, None]
    d = ((xs[None] - center[:, 0, None, None]) ** 2 + (ys[None] - center[:, 1, None, None]) ** 2).sqrt()
    inside = torch.sigmoid((radius[:, None, None] - d) * 12)[:, None]
    img = base[:, :, None, None] + ramp[:, :, None, None] * u[:, None]
    img = img * (1 - inside) + disc_color[:, :, None, None] * inside
    return (img + 0.02 * torch.randn(img.shape, generator=gen)).clamp(0, 1)


def vqvae_loss(outputs, data: torch.Tensor, data_variance: float) -> torch.Tensor:
    vq_loss, data_recon, _perplexity = outputs
    recon_error = F.mse_loss(data_recon, data) / data_variance
    return recon_error + vq_loss


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=3e-4)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images = make_images(gen, COUNT)
    data_variance = float(images.var())  # np.var(training_data.data / 255.0)
    x = images - 0.5  # Normalize((0.5, 0.5, 0.5), (1.0, 1.0, 1.0))
    spec = {
        "model": Model(),
        "batch": (x, x),
        "loss_fn": partial(vqvae_loss, data_variance=data_variance),
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
