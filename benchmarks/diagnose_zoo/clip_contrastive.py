"""openai/CLIP model.py (Radford et al. 2021): VisionTransformer image encoder and causal text Transformer (pre-LN ResidualAttentionBlocks with QuickGELU, EOT-token pooling via text.argmax(-1), ln_final, text_projection), learnable logit_scale initialised to ln(1/0.07); mlfoundations/open_clip's ClipLoss (symmetric cross-entropy over the batch's similarity matrix, labels = arange), AdamW lr 5e-4 betas (0.9, 0.98) eps 1e-6 with weight decay 0.2 on >=2-D weights only, and logit_scale clamped to ln(100) after each step."""

from __future__ import annotations

import math
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn

# ---------------------------------------------------------------- captioned synthetic images
COLOURS = ["red", "green", "blue", "yellow"]
SHAPES = ["square", "cross", "ring", "bar"]
PLACES = ["top-left", "top-right", "bottom-left", "bottom-right"]
WORDS = ["<pad>", "<start_of_text>", "a", "photo", "of", "the", "small", "at", "in", "is"] + COLOURS + SHAPES + PLACES + ["<end_of_text>"]
TOKEN = {w: i for i, w in enumerate(WORDS)}
VOCAB_SIZE = len(WORDS)          # EOT has the largest id, as in CLIP's BPE vocabulary
CONTEXT_LENGTH = 12
IMAGE_SIZE, PATCH_SIZE = 12, 4
BATCH_SIZE = 64
RGB = torch.tensor([[1.0, 0.1, 0.1], [0.1, 0.9, 0.1], [0.15, 0.25, 1.0], [1.0, 0.9, 0.1]])
TEMPLATES = [
    ["a", "photo", "of", "a", "{c}", "{s}"],
    ["a", "{c}", "{s}"],
    ["the", "{s}", "is", "{c}"],
    ["a", "small", "{c}", "{s}"],
    ["a", "photo", "of", "a", "{c}", "{s}", "at", "{p}"],
    ["the", "{s}", "in", "the", "{p}", "is", "{c}"],
]


def _shape_mask(shape: int) -> torch.Tensor:
    m = torch.zeros(6, 6)
    if shape == 0:      # square
        m[1:5, 1:5] = 1
    elif shape == 1:    # cross
        m[2:4, :] = 1
        m[:, 2:4] = 1
    elif shape == 2:    # ring
        m[0:6, 0:6] = 1
        m[2:4, 2:4] = 0
    else:               # bar
        m[:, 2:4] = 1
    return m


def make_pairs(gen: torch.Generator, n: int = BATCH_SIZE):
    """n image-caption pairs; each (colour, shape) concept appears n / 16 times, at a random place, with a random caption
    template (two of the six also name the place)."""
    concepts = (torch.arange(n) % (len(COLOURS) * len(SHAPES)))[torch.randperm(n, generator=gen)]
    images = torch.empty(n, 3, IMAGE_SIZE, IMAGE_SIZE)
    texts = torch.zeros(n, CONTEXT_LENGTH, dtype=torch.long)
    for i, k in enumerate(concepts.tolist()):
        c, s = k // len(SHAPES), k % len(SHAPES)
        p = int(torch.randint(0, len(PLACES), (1,), generator=gen))
        bg = 0.45 + 0.1 * torch.rand(3, 1, 1, generator=gen)
        img = bg.expand(3, IMAGE_SIZE, IMAGE_SIZE).clone()
        r0 = (p // 2) * 6 + int(torch.randint(-1, 1, (1,), generator=gen))
        c0 = (p % 2) * 6 + int(torch.randint(-1, 1, (1,), generator=gen))
        r0, c0 = max(r0, 0), max(c0, 0)
        mask = _shape_mask(s)
        colour = RGB[c].view(3, 1, 1) * (0.8 + 0.4 * torch.rand(1, generator=gen))
        img[:, r0:r0 + 6, c0:c0 + 6] = torch.where(mask.bool(), colour, img[:, r0:r0 + 6, c0:c0 + 6])
        images[i] = (img + 0.05 * torch.randn(img.shape, generator=gen)).clamp(0, 1)
        words = TEMPLATES[int(torch.randint(0, len(TEMPLATES), (1,), generator=gen))]
        words = [w.format(c=COLOURS[c], s=SHAPES[s], p=PLACES[p]) for w in words]
        ids = [TOKEN["<start_of_text>"]] + [TOKEN[w] for w in words] + [TOKEN["<end_of_text>"]]
        texts[i, : len(ids)] = torch.tensor(ids)
    mean = torch.tensor([0.48145466, 0.4578275, 0.40821073]).view(1, 3, 1, 1)
    std = torch.tensor([0.26862954, 0.26130258, 0.27577711]).view(1, 3, 1, 1)
    return (images - mean) / std, texts, concepts


# ---------------------------------------------------------------- model (openai/CLIP model.py, shrunk)
class LayerNorm(nn.LayerNorm):
    """Subclass torch's LayerNorm to handle fp16."""

    def forward(self, x: torch.Tensor):
        orig_type = x.dtype
        ret = super().forward(x.type(torch.float32))
        return ret.type(orig_type)


class QuickGELU(nn.Module):
    def forward(self, x: torch.Tensor):
        return x * torch.sigmoid(1.702 * x)


class ResidualAttentionBlock(nn.Module):
    def __init__(self, d_model: int, n_head: int, attn_mask: torch.Tensor = None):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_head)
        self.ln_1 = LayerNorm(d_model)
        self.mlp = nn.Sequential(OrderedDict([
            ("c_fc", nn.Linear(d_model, d_model * 4)),
            ("gelu", QuickGELU()),
            ("c_proj", nn.Linear(d_model * 4, d_model)),
        ]))
        self.ln_2 = LayerNorm(d_model)
        self.attn_mask = attn_mask

    def attention(self, x: torch.Tensor):
        self.attn_mask = self.attn_mask.to(dtype=x.dtype, device=x.device) if self.attn_mask is not None else None
        return self.attn(x, x, x, need_weights=False, attn_mask=self.attn_mask)[0]

    def forward(self, x: torch.Tensor):
        x = x + self.attention(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class Transformer(nn.Module):
    def __init__(self, width: int, layers: int, heads: int, attn_mask: torch.Tensor = None):
        super().__init__()
        self.width = width
        self.layers = layers
        self.resblocks = nn.Sequential(*[ResidualAttentionBlock(width, heads, attn_mask) for _ in range(layers)])

    def forward(self, x: torch.Tensor):
        return self.resblocks(x)


class VisionTransformer(nn.Module):
    def __init__(self, input_resolution: int, patch_size: int, width: int, layers: int, heads: int, output_dim: int):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, kernel_size=patch_size, stride=patch_size, bias=False)
        scale = width ** -0.5
        self.class_embedding = nn.Parameter(scale * torch.randn(width))
        self.positional_embedding = nn.Parameter(scale * torch.randn((input_resolution // patch_size) ** 2 + 1, width))
        self.ln_pre = LayerNorm(width)
        self.transformer = Transformer(width, layers, heads)
        self.ln_post = LayerNorm(width)
        self.proj = nn.Parameter(scale * torch.randn(width, output_dim))

    def forward(self, x: torch.Tensor):
        x = self.conv1(x)  # shape = [*, width, grid, grid]
        x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)  # shape = [*, grid ** 2, width]
        cls = self.class_embedding.to(x.dtype) + torch.zeros(x.shape[0], 1, x.shape[-1], dtype=x.dtype, device=x.device)
        x = torch.cat([cls, x], dim=1)  # shape = [*, grid ** 2 + 1, width]
        x = x + self.positional_embedding.to(x.dtype)
        x = self.ln_pre(x)
        x = x.permute(1, 0, 2)  # NLD -> LND
        x = self.transformer(x)
        x = x.permute(1, 0, 2)  # LND -> NLD
        x = self.ln_post(x[:, 0, :])
        return x @ self.proj


class CLIP(nn.Module):
    def __init__(self, embed_dim=64, image_resolution=IMAGE_SIZE, vision_layers=1, vision_width=32, vision_patch_size=PATCH_SIZE,
                 context_length=CONTEXT_LENGTH, vocab_size=VOCAB_SIZE, transformer_width=32, transformer_heads=2, transformer_layers=1):
        super().__init__()
        self.context_length = context_length
        self.visual = VisionTransformer(image_resolution, vision_patch_size, vision_width, vision_layers, vision_width // 16, embed_dim)
        self.transformer = Transformer(transformer_width, transformer_layers, transformer_heads, attn_mask=self.build_attention_mask())
        self.vocab_size = vocab_size
        self.token_embedding = nn.Embedding(vocab_size, transformer_width)
        self.positional_embedding = nn.Parameter(torch.empty(self.context_length, transformer_width))
        self.ln_final = LayerNorm(transformer_width)
        self.text_projection = nn.Parameter(torch.empty(transformer_width, embed_dim))
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))
        self.initialize_parameters()

    def initialize_parameters(self):
        nn.init.normal_(self.token_embedding.weight, std=0.02)
        nn.init.normal_(self.positional_embedding, std=0.01)
        proj_std = (self.transformer.width ** -0.5) * ((2 * self.transformer.layers) ** -0.5)
        attn_std = self.transformer.width ** -0.5
        fc_std = (2 * self.transformer.width) ** -0.5
        for block in self.transformer.resblocks:
            nn.init.normal_(block.attn.in_proj_weight, std=attn_std)
            nn.init.normal_(block.attn.out_proj.weight, std=proj_std)
            nn.init.normal_(block.mlp.c_fc.weight, std=fc_std)
            nn.init.normal_(block.mlp.c_proj.weight, std=proj_std)
        nn.init.normal_(self.text_projection, std=self.transformer.width ** -0.5)

    def build_attention_mask(self):
        # lazily create causal attention mask, with full attention between the vision tokens
        mask = torch.empty(self.context_length, self.context_length)
        mask.fill_(float("-inf"))
        mask.triu_(1)  # zero out the lower diagonal
        return mask

    def encode_image(self, image):
        return self.visual(image)

    def encode_text(self, text):
        x = self.token_embedding(text)  # [batch_size, n_ctx, d_model]
        x = x + self.positional_embedding
        x = x.permute(1, 0, 2)  # NLD -> LND
        x = self.transformer(x)
        x = x.permute(1, 0, 2)  # LND -> NLD
        x = self.ln_final(x)
        # x.shape = [batch_size, n_ctx, transformer.width]
        # take features from the eot embedding (eot_token is the highest number in each sequence)
        x = x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection
        return x

    def forward(self, image, text):
        """open_clip's CLIP.forward: normalised features and the exponentiated logit scale."""
        image_features = F.normalize(self.encode_image(image), dim=-1)
        text_features = F.normalize(self.encode_text(text), dim=-1)
        return image_features, text_features, self.logit_scale.exp()


# ---------------------------------------------------------------- open_clip ClipLoss and training step
def clip_loss(outputs, _targets=None) -> torch.Tensor:
    image_features, text_features, logit_scale = outputs
    logits_per_image = logit_scale * image_features @ text_features.T
    logits_per_text = logit_scale * text_features @ image_features.T
    labels = torch.arange(logits_per_image.shape[0], device=logits_per_image.device, dtype=torch.long)
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2


def make_optimizer(params) -> torch.optim.Optimizer:
    """open_clip: gains, biases and logit_scale (p.ndim < 2) get no weight decay."""
    params = [p for p in params if p.requires_grad]
    gain_or_bias = [p for p in params if p.ndim < 2]
    rest = [p for p in params if p.ndim >= 2]
    return torch.optim.AdamW(
        [{"params": gain_or_bias, "weight_decay": 0.0}, {"params": rest, "weight_decay": 0.2}],
        lr=5e-4, betas=(0.9, 0.98), eps=1e-6,
    )


def train_step(model: CLIP, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    (images, texts), targets = batch
    optimizer.zero_grad()
    total_loss = clip_loss(model(images, texts), targets)
    total_loss.backward()
    optimizer.step()
    # Note: we clamp to 4.6052 = ln(100), as in the original paper.
    with torch.no_grad():
        model.logit_scale.clamp_(0, math.log(100))
    return total_loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    images, texts, _ = make_pairs(torch.Generator().manual_seed(seed))
    val_images, val_texts, _ = make_pairs(torch.Generator().manual_seed(seed + 1000))
    spec = {
        "model": CLIP(),
        "batch": ((images, texts), None),     # the matching caption of image i is text i; labels are built in the loss
        "val_batch": ((val_images, val_texts), None),
        "loss_fn": clip_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
