import math
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, t):
        half = self.dim // 2
        emb = math.log(10000) / (half - 1)
        emb = torch.exp(torch.arange(half, device=t.device) * -emb)
        emb = t.float()[:, None] * emb[None, :]
        return torch.cat((emb.sin(), emb.cos()), dim=-1)


class ResnetBlock(nn.Module):
    def __init__(self, dim, dim_out, time_emb_dim, groups=8, dropout=0.1):
        super().__init__()
        self.mlp = nn.Sequential(nn.SiLU(), nn.Linear(time_emb_dim, dim_out * 2))
        self.block1 = nn.Sequential(nn.GroupNorm(groups, dim), nn.SiLU(), nn.Conv2d(dim, dim_out, 3, padding=1))
        self.block2 = nn.Sequential(nn.GroupNorm(groups, dim_out), nn.SiLU(), nn.Dropout(dropout),
                                    nn.Conv2d(dim_out, dim_out, 3, padding=1))
        self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()

    def forward(self, x, time_emb):
        scale, shift = self.mlp(time_emb)[:, :, None, None].chunk(2, dim=1)
        h = self.block1(x)
        h = h * (scale + 1) + shift
        h = self.block2(h)
        return h + self.res_conv(x)


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=32):
        super().__init__()
        self.heads = heads
        hidden = heads * dim_head
        self.norm = nn.GroupNorm(1, dim)
        self.to_qkv = nn.Conv2d(dim, hidden * 3, 1, bias=False)
        self.to_out = nn.Conv2d(hidden, dim, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        q, k, v = self.to_qkv(self.norm(x)).chunk(3, dim=1)
        q, k, v = (t.reshape(b, self.heads, -1, h * w).transpose(-1, -2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v)
        out = out.transpose(-1, -2).reshape(b, -1, h, w)
        return self.to_out(out) + x


class Unet(nn.Module):
    def __init__(self, dim=64, dim_mults=(1, 2, 4, 8), channels=3, dropout=0.1):
        super().__init__()
        self.channels = channels
        dims = [dim, *map(lambda m: dim * m, dim_mults)]
        in_out = list(zip(dims[:-1], dims[1:]))
        time_dim = dim * 4
        self.init_conv = nn.Conv2d(channels, dim, 7, padding=3)
        self.time_mlp = nn.Sequential(SinusoidalPosEmb(dim), nn.Linear(dim, time_dim), nn.GELU(),
                                      nn.Linear(time_dim, time_dim))
        block = partial(ResnetBlock, time_emb_dim=time_dim, dropout=dropout)
        self.downs, self.ups = nn.ModuleList(), nn.ModuleList()
        for ind, (d_in, d_out) in enumerate(in_out):
            is_last = ind == len(in_out) - 1
            self.downs.append(nn.ModuleList([
                block(d_in, d_in), block(d_in, d_in),
                nn.Conv2d(d_in, d_out, 4, 2, 1) if not is_last else nn.Conv2d(d_in, d_out, 3, padding=1)]))
        mid = dims[-1]
        self.mid_block1, self.mid_attn, self.mid_block2 = block(mid, mid), Attention(mid), block(mid, mid)
        for ind, (d_in, d_out) in enumerate(reversed(in_out)):
            is_last = ind == len(in_out) - 1
            self.ups.append(nn.ModuleList([
                block(d_out + d_in, d_out), block(d_out + d_in, d_out),
                nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(d_out, d_in, 3, padding=1))
                if not is_last else nn.Conv2d(d_out, d_in, 3, padding=1)]))
        self.final_res_block = block(dim * 2, dim)
        self.final_conv = nn.Conv2d(dim, channels, 1)

    def forward(self, x, time):
        x = self.init_conv(x)
        r = x.clone()
        t = self.time_mlp(time)
        h = []
        for block1, block2, downsample in self.downs:
            x = block1(x, t)
            h.append(x)
            x = block2(x, t)
            h.append(x)
            x = downsample(x)
        x = self.mid_block2(self.mid_attn(self.mid_block1(x, t)), t)
        for block1, block2, upsample in self.ups:
            x = block1(torch.cat((x, h.pop()), dim=1), t)
            x = block2(torch.cat((x, h.pop()), dim=1), t)
            x = upsample(x)
        x = self.final_res_block(torch.cat((x, r), dim=1), t)
        return self.final_conv(x)
