import timm
import torch.nn as nn
import torch.nn.functional as F
from transformers import AutoModel


class ProjectionHead(nn.Module):
    def __init__(self, in_dim, out_dim=256, dropout=0.1):
        super().__init__()
        self.proj = nn.Linear(in_dim, out_dim)
        self.fc = nn.Linear(out_dim, out_dim)
        self.drop = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(out_dim)

    def forward(self, x):
        p = self.proj(x)
        return self.norm(p + self.drop(self.fc(F.gelu(p))))


class DualEncoder(nn.Module):
    def __init__(self, image_model="resnet50", text_model="distilbert-base-uncased", embed_dim=256):
        super().__init__()
        self.image_encoder = timm.create_model(image_model, pretrained=True, num_classes=0, global_pool="avg")
        self.text_encoder = AutoModel.from_pretrained(text_model)
        self.image_proj = ProjectionHead(self.image_encoder.num_features, embed_dim)
        self.text_proj = ProjectionHead(self.text_encoder.config.hidden_size, embed_dim)

    def forward(self, images, input_ids, attention_mask):
        img = self.image_proj(self.image_encoder(images))
        txt = self.text_encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state[:, 0]
        txt = self.text_proj(txt)
        return F.normalize(img, dim=-1), F.normalize(txt, dim=-1)
