import math

import timm
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import DistilBertModel

from config import CFG


class ProjectionHead(nn.Module):
    def __init__(self, embedding_dim, projection_dim=CFG.projection_dim, dropout=CFG.dropout):
        super().__init__()
        self.projection = nn.Linear(embedding_dim, projection_dim)
        self.gelu = nn.GELU()
        self.fc = nn.Linear(projection_dim, projection_dim)
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(projection_dim)

    def forward(self, x):
        projected = self.projection(x)
        x = self.dropout(self.fc(self.gelu(projected)))
        return self.layer_norm(x + projected)


class CLIPModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.image_encoder = timm.create_model(CFG.image_model, pretrained=True, num_classes=0, global_pool="avg")
        self.text_encoder = DistilBertModel.from_pretrained(CFG.text_model)
        self.image_projection = ProjectionHead(CFG.image_embedding)
        self.text_projection = ProjectionHead(CFG.text_embedding)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / CFG.init_temperature)))

    def forward(self, batch):
        image_features = self.image_encoder(batch["image"])
        text_out = self.text_encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
        text_features = text_out.last_hidden_state[:, 0, :]
        img = F.normalize(self.image_projection(image_features), dim=-1)
        txt = F.normalize(self.text_projection(text_features), dim=-1)
        logits = self.logit_scale.exp().clamp(max=100) * txt @ img.T
        targets = torch.arange(logits.size(0), device=logits.device)
        return (F.cross_entropy(logits, targets) + F.cross_entropy(logits.T, targets)) / 2
