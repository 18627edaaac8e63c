import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ContrastiveLoss(nn.Module):
    """Symmetric InfoNCE with a learnable temperature (as in CLIP)."""

    def __init__(self, init_temperature=0.07, max_scale=100.0):
        super().__init__()
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1.0 / init_temperature)))
        self.max_scale = max_scale

    def forward(self, image_emb, text_emb):
        scale = self.logit_scale.exp().clamp(max=self.max_scale)
        logits = scale * image_emb @ text_emb.t()
        targets = torch.arange(logits.size(0), device=logits.device)
        return 0.5 * (F.cross_entropy(logits, targets) + F.cross_entropy(logits.t(), targets))
