import torch
import torch.nn as nn

from layers import Block, PatchEmbed

_models = {}


def register_model(fn):
    _models[fn.__name__] = fn
    return fn


def create_model(name, **kwargs):
    return _models[name](**kwargs)


class VisionTransformer(nn.Module):
    def __init__(self, img_size=32, patch_size=4, num_classes=10, embed_dim=192, depth=9, num_heads=12,
                 drop_rate=0.1):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size, patch_size, 3, embed_dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, self.patch_embed.num_patches + 1, embed_dim))
        self.blocks = nn.Sequential(*[Block(embed_dim, num_heads, drop=drop_rate) for _ in range(depth)])
        self.norm = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)

    def forward(self, x):
        x = self.patch_embed(x)
        x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


@register_model
def vit_tiny_cifar(**kwargs):
    return VisionTransformer(embed_dim=192, depth=9, num_heads=12, **kwargs)


@register_model
def vit_small_cifar(**kwargs):
    return VisionTransformer(embed_dim=384, depth=7, num_heads=12, **kwargs)
