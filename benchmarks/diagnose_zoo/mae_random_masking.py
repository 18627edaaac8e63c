"""Masked autoencoder (He et al. 2022) as in facebookresearch/mae models_mae.py: patchify, fixed 2-D sin-cos position embeddings, per-sample random masking of 75% of the patches (argsort of uniform noise) inside forward, pre-norm ViT encoder on the visible patches plus cls token, mask tokens and a lighter decoder, pixel MSE on the masked patches only (norm_pix_loss=False, the code's default); AdamW lr 2.4e-3 (blr 1.5e-4 x 4096/256), betas (0.9, 0.95), weight decay 0.05 except biases and norms."""

from __future__ import annotations

import math

import torch
from torch import nn

IMG_SIZE = 16
PATCH_SIZE = 4
IN_CHANS = 3
EMBED_DIM = 48
DEPTH = 2
NUM_HEADS = 4
DECODER_EMBED_DIM = 32
DECODER_DEPTH = 1
DECODER_NUM_HEADS = 4
MLP_RATIO = 4.0
MASK_RATIO = 0.75
COUNT = 64


def get_1d_sincos_pos_embed_from_grid(embed_dim: int, pos: torch.Tensor) -> torch.Tensor:
    omega = torch.arange(embed_dim // 2, dtype=torch.float64) / (embed_dim / 2.0)
    omega = 1.0 / 10000 ** omega
    out = pos.reshape(-1).double()[:, None] * omega[None, :]
    return torch.cat([torch.sin(out), torch.cos(out)], dim=1)


def get_2d_sincos_pos_embed(embed_dim: int, grid_size: int, cls_token: bool = False) -> torch.Tensor:
    grid_h = torch.arange(grid_size, dtype=torch.float64)
    grid_w = torch.arange(grid_size, dtype=torch.float64)
    gw, gh = torch.meshgrid(grid_w, grid_h, indexing="xy")  # here w goes first, as in np.meshgrid
    emb_h = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, gw)
    emb_w = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, gh)
    pos_embed = torch.cat([emb_h, emb_w], dim=1)
    if cls_token:
        pos_embed = torch.cat([torch.zeros(1, embed_dim, dtype=torch.float64), pos_embed], dim=0)
    return pos_embed.float()


class PatchEmbed(nn.Module):
    def __init__(self, img_size: int, patch_size: int, in_chans: int, embed_dim: int):
        super().__init__()
        self.patch_size = (patch_size, patch_size)
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x).flatten(2).transpose(1, 2)


class Attention(nn.Module):
    def __init__(self, dim: int, num_heads: int, qkv_bias: bool = True):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Mlp(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    """timm's pre-norm ViT block (qkv_bias=True, LayerNorm eps 1e-6)."""

    def __init__(self, dim: int, num_heads: int, mlp_ratio: float):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, num_heads, qkv_bias=True)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


def patchify(imgs: torch.Tensor, p: int = PATCH_SIZE) -> torch.Tensor:
    """(N, 3, H, W) -> (N, L, p*p*3)."""
    h = w = imgs.shape[2] // p
    x = imgs.reshape(imgs.shape[0], IN_CHANS, h, p, w, p)
    x = torch.einsum("nchpwq->nhwpqc", x)
    return x.reshape(imgs.shape[0], h * w, p ** 2 * IN_CHANS)


def masked_patch_loss(outputs, imgs: torch.Tensor, norm_pix_loss: bool = False) -> torch.Tensor:
    """models_mae.forward_loss: MSE per patch against (optionally per-patch normalised) pixels, averaged
    over the masked patches only."""
    pred, mask = outputs
    target = patchify(imgs)
    if norm_pix_loss:
        mean = target.mean(dim=-1, keepdim=True)
        var = target.var(dim=-1, keepdim=True)
        target = (target - mean) / (var + 1.0e-6) ** 0.5
    loss = (pred - target) ** 2
    loss = loss.mean(dim=-1)  # [N, L], mean loss per patch
    return (loss * mask).sum() / mask.sum()  # mean loss on removed patches


class MaskedAutoencoderViT(nn.Module):
    def __init__(self, norm_pix_loss: bool = False):
        super().__init__()
        self.patch_embed = PatchEmbed(IMG_SIZE, PATCH_SIZE, IN_CHANS, EMBED_DIM)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, EMBED_DIM))
        self.pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, EMBED_DIM), requires_grad=False)  # fixed sin-cos
        self.blocks = nn.ModuleList([Block(EMBED_DIM, NUM_HEADS, MLP_RATIO) for _ in range(DEPTH)])
        self.norm = nn.LayerNorm(EMBED_DIM, eps=1e-6)
        self.decoder_embed = nn.Linear(EMBED_DIM, DECODER_EMBED_DIM, bias=True)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, DECODER_EMBED_DIM))
        self.decoder_pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, DECODER_EMBED_DIM), requires_grad=False)
        self.decoder_blocks = nn.ModuleList([Block(DECODER_EMBED_DIM, DECODER_NUM_HEADS, MLP_RATIO) for _ in range(DECODER_DEPTH)])
        self.decoder_norm = nn.LayerNorm(DECODER_EMBED_DIM, eps=1e-6)
        self.decoder_pred = nn.Linear(DECODER_EMBED_DIM, PATCH_SIZE ** 2 * IN_CHANS, bias=True)
        self.norm_pix_loss = norm_pix_loss
        self.initialize_weights()

    def initialize_weights(self) -> None:
        grid = int(self.patch_embed.num_patches ** 0.5)
        self.pos_embed.data.copy_(get_2d_sincos_pos_embed(self.pos_embed.shape[-1], grid, cls_token=True).unsqueeze(0))
        self.decoder_pos_embed.data.copy_(get_2d_sincos_pos_embed(self.decoder_pos_embed.shape[-1], grid, cls_token=True).unsqueeze(0))
        w = self.patch_embed.proj.weight.data
        nn.init.xavier_uniform_(w.view([w.shape[0], -1]))
        nn.init.normal_(self.cls_token, std=0.02)
        nn.init.normal_(self.mask_token, std=0.02)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m: nn.Module) -> None:
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)
        elif isinstance(m, nn.LayerNorm):
            nn.init.constant_(m.bias, 0)
            nn.init.constant_(m.weight, 1.0)

    def patchify(self, imgs: torch.Tensor) -> torch.Tensor:
        return patchify(imgs, self.patch_embed.patch_size[0])

    def random_masking(self, x: torch.Tensor, mask_ratio: float):
        N, L, D = x.shape
        len_keep = int(L * (1 - mask_ratio))
        noise = torch.rand(N, L, device=x.device)  # noise in [0, 1]
        ids_shuffle = torch.argsort(noise, dim=1)  # ascend: small is keep, large is remove
        ids_restore = torch.argsort(ids_shuffle, dim=1)
        ids_keep = ids_shuffle[:, :len_keep]
        x_masked = torch.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, D))
        mask = torch.ones([N, L], device=x.device)  # 0 is keep, 1 is remove
        mask[:, :len_keep] = 0
        mask = torch.gather(mask, dim=1, index=ids_restore)
        return x_masked, mask, ids_restore

    def forward_encoder(self, x: torch.Tensor, mask_ratio: float):
        x = self.patch_embed(x)
        x = x + self.pos_embed[:, 1:, :]
        x, mask, ids_restore = self.random_masking(x, mask_ratio)
        cls_token = self.cls_token + self.pos_embed[:, :1, :]
        x = torch.cat((cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x), mask, ids_restore

    def forward_decoder(self, x: torch.Tensor, ids_restore: torch.Tensor) -> torch.Tensor:
        x = self.decoder_embed(x)
        mask_tokens = self.mask_token.repeat(x.shape[0], ids_restore.shape[1] + 1 - x.shape[1], 1)
        x_ = torch.cat([x[:, 1:, :], mask_tokens], dim=1)  # no cls token
        x_ = torch.gather(x_, dim=1, index=ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2]))  # unshuffle
        x = torch.cat([x[:, :1, :], x_], dim=1)
        x = x + self.decoder_pos_embed
        for blk in self.decoder_blocks:
            x = blk(x)
        x = self.decoder_pred(self.decoder_norm(x))
        return x[:, 1:, :]  # remove cls token

    def forward_loss(self, imgs: torch.Tensor, pred: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return masked_patch_loss((pred, mask), imgs, self.norm_pix_loss)

    def forward(self, imgs: torch.Tensor, mask_ratio: float = MASK_RATIO):
        """models_mae returns (loss, pred, mask); here forward returns (pred, mask) and loss_fn calls forward_loss."""
        latent, mask, ids_restore = self.forward_encoder(imgs, mask_ratio)
        pred = self.forward_decoder(latent, ids_restore)
        return pred, mask


def make_images(gen: torch.Generator, n: int) -> torch.Tensor:
    """Smooth colour images: a random per-channel base colour, a linear colour ramp in a random direction
    and a low-frequency grating, plus pixel noise; normalised with ImageNet's per-channel mean/std like
    transforms.Normalize. Masked patches are predictable from the visible ones, not from the position alone."""
    base = 0.2 + 0.6 * torch.rand(n, IN_CHANS, generator=gen)
    ramp = 0.4 * (2 * torch.rand(n, IN_CHANS, generator=gen) - 1)
    theta = torch.rand(n, generator=gen) * 2 * math.pi
    period = 12 + 12 * torch.rand(n, generator=gen)
    phase = torch.rand(n, generator=gen) * 2 * math.pi
    amp = 0.15 * torch.rand(n, IN_CHANS, generator=gen)
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, IMG_SIZE), torch.linspace(-1, 1, IMG_SIZE), indexing="ij")
    u = xs[None] * theta.cos()[:, None, None] + ys[None] * theta.sin()[:, None, None]  # (n, H, W) in [-1.4, 1.4]
    wave = torch.sin(2 * math.pi * u * (IMG_SIZE / 2) / period[:, None, None] + phase[:, None, None])
    img = base[:, :, None, None] + ramp[:, :, None, None] * u[:, None] + amp[:, :, None, None] * wave[:, None]
    img = (img + 0.02 * torch.randn(img.shape, generator=gen)).clamp(0, 1)
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return (img - mean) / std


def make_optimizer(params) -> torch.optim.Optimizer:
    """timm optim_factory.add_weight_decay: skip frozen tensors, no decay on 1-D tensors (biases, norms)."""
    params = [p for p in params if p.requires_grad]
    decay = [p for p in params if p.ndim > 1]
    no_decay = [p for p in params if p.ndim <= 1]
    groups = [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": 0.05}]
    return torch.optim.AdamW(groups, lr=2.4e-3, betas=(0.9, 0.95))


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    imgs = make_images(gen, COUNT)
    spec = {
        "model": MaskedAutoencoderViT(norm_pix_loss=False),
        "batch": (imgs, imgs),
        "loss_fn": masked_patch_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
