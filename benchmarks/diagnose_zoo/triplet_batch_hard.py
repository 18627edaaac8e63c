"""omoindrot/tensorflow-triplet-loss (the batch-hard triplet loss of Hermans, Beyer & Leibe 2017, "In Defense of the Triplet Loss", on MNIST): embedding net of conv3x3-ReLU-maxpool blocks (32, 64 channels; no batch norm, use_batch_norm false) and a dense layer to the embedding, batch_hard_triplet_loss with margin 0.5 on euclidean distances (squared=False, the 1e-16 sqrt guard) over a P x K batch (Hermans' PK sampling), Adam lr 1e-3."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 10          # digit identities
P, K = 8, 4               # PK sampling: P identities x K images each
IMAGE_SIZE = 12           # MNIST 28x28, shrunk
NUM_CHANNELS = 8          # 32 in params.json
EMBEDDING_SIZE = 16       # 64 in params.json
MARGIN = 0.5
WORLD_SEED = 2017


# ---------------------------------------------------------------- data: "digits" in [0, 1] (image / 255.)
def _glyphs() -> torch.Tensor:
    """One stroke pattern per digit: 3 random strokes, blurred."""
    g = torch.Generator().manual_seed(WORLD_SEED)
    glyphs = torch.zeros(NUM_CLASSES, 1, IMAGE_SIZE, IMAGE_SIZE)
    for k in range(NUM_CLASSES):
        for _ in range(3):
            p0 = 2 + torch.randint(0, 8, (2,), generator=g).float()
            p1 = 2 + torch.randint(0, 8, (2,), generator=g).float()
            for t in torch.linspace(0, 1, 16):
                r, c = (p0 + t * (p1 - p0)).round().long().tolist()
                glyphs[k, 0, r, c] = 1.0
    kernel = torch.tensor([[0.3, 0.6, 0.3], [0.6, 1.0, 0.6], [0.3, 0.6, 0.3]]).view(1, 1, 3, 3)
    return F.conv2d(glyphs, kernel, padding=1).clamp(0, 1)


def make_pk_batch(gen: torch.Generator):
    """P digit classes drawn at random, K handwritten-like samples of each (shift, stroke intensity, background noise)."""
    labels = torch.randperm(NUM_CLASSES, generator=gen)[:P].repeat_interleave(K)
    x = _glyphs()[labels]
    n = labels.numel()
    x = torch.stack([torch.roll(x[i], shifts=(int(torch.randint(-1, 2, (1,), generator=gen)), int(torch.randint(-1, 2, (1,), generator=gen))), dims=(1, 2))
                     for i in range(n)])
    x = (x * (0.6 + 0.4 * torch.rand(n, 1, 1, 1, generator=gen)) + 0.15 * torch.rand(x.shape, generator=gen)).clamp(0, 1)
    return x, labels


# ---------------------------------------------------------------- model/model_fn.py build_model
class EmbeddingNet(nn.Module):
    def __init__(self, num_channels: int = NUM_CHANNELS, embedding_size: int = EMBEDDING_SIZE, use_batch_norm: bool = False, bn_momentum: float = 0.9):
        super().__init__()
        channels = [num_channels, num_channels * 2]
        blocks, c_in = [], 1
        for c in channels:
            layers = [nn.Conv2d(c_in, c, 3, padding=1)]       # tf.layers.conv2d(out, c, 3, padding='same')
            if use_batch_norm:
                layers.append(nn.BatchNorm2d(c, momentum=1 - bn_momentum))
            layers += [nn.ReLU(), nn.MaxPool2d(2, 2)]
            blocks.append(nn.Sequential(*layers))
            c_in = c
        self.blocks = nn.Sequential(*blocks)
        self.flat_dim = channels[-1] * (IMAGE_SIZE // 4) ** 2
        self.fc_1 = nn.Linear(self.flat_dim, embedding_size)
        # TF's default initialisers: glorot_uniform kernels, zero biases
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, images):
        out = self.blocks(images)
        out = out.reshape(-1, self.flat_dim)
        return self.fc_1(out)


# ---------------------------------------------------------------- model/triplet_loss.py
def _pairwise_distances(embeddings: torch.Tensor, squared: bool = False) -> torch.Tensor:
    dot_product = embeddings @ embeddings.T
    square_norm = torch.diagonal(dot_product)
    distances = square_norm.unsqueeze(0) - 2.0 * dot_product + square_norm.unsqueeze(1)
    distances = torch.clamp(distances, min=0.0)
    if not squared:
        # Because the gradient of sqrt is infinite when distances == 0.0 (ex: on the diagonal)
        # we need to add a small epsilon where distances == 0.0
        mask = (distances == 0.0).float()
        distances = distances + mask * 1e-16
        distances = torch.sqrt(distances)
        # Correct the epsilon added: set the distances on the mask to be exactly 0.0
        distances = distances * (1.0 - mask)
    return distances


def _get_anchor_positive_triplet_mask(labels: torch.Tensor) -> torch.Tensor:
    indices_not_equal = ~torch.eye(labels.size(0), dtype=torch.bool, device=labels.device)
    labels_equal = labels.unsqueeze(0) == labels.unsqueeze(1)
    return indices_not_equal & labels_equal


def _get_anchor_negative_triplet_mask(labels: torch.Tensor) -> torch.Tensor:
    return ~(labels.unsqueeze(0) == labels.unsqueeze(1))


def batch_hard_triplet_loss(labels: torch.Tensor, embeddings: torch.Tensor, margin: float = MARGIN, squared: bool = False) -> torch.Tensor:
    """For each anchor, the hardest positive and the hardest negative in the batch."""
    pairwise_dist = _pairwise_distances(embeddings, squared=squared)
    # hardest positive: the largest distance among same-label pairs (others zeroed)
    mask_anchor_positive = _get_anchor_positive_triplet_mask(labels).float()
    anchor_positive_dist = mask_anchor_positive * pairwise_dist
    hardest_positive_dist = anchor_positive_dist.max(dim=1, keepdim=True).values
    # hardest negative: add the row maximum to the invalid (same-label) entries, then take the minimum
    mask_anchor_negative = _get_anchor_negative_triplet_mask(labels).float()
    max_anchor_negative_dist = pairwise_dist.max(dim=1, keepdim=True).values
    anchor_negative_dist = pairwise_dist + max_anchor_negative_dist * (1.0 - mask_anchor_negative)
    hardest_negative_dist = anchor_negative_dist.min(dim=1, keepdim=True).values
    triplet_loss = torch.clamp(hardest_positive_dist - hardest_negative_dist + margin, min=0.0)
    return triplet_loss.mean()


def triplet_loss(embeddings: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return batch_hard_triplet_loss(labels, embeddings, margin=MARGIN, squared=False)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    images, labels = make_pk_batch(torch.Generator().manual_seed(seed))
    val_images, val_labels = make_pk_batch(torch.Generator().manual_seed(seed + 1000))
    spec = {
        "model": EmbeddingNet(),
        "batch": (images, labels),
        "val_batch": (val_images, val_labels),
        "loss_fn": triplet_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
