import torch
import torch.nn as nn
from transformers import AutoModel


class ToxicClassifier(nn.Module):
    def __init__(self, backbone, num_labels, dropout=0.1):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(backbone)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(self.encoder.config.hidden_size, num_labels)

    def forward(self, input_ids, attention_mask):
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
        pooled = out.last_hidden_state[:, 0]
        logits = self.classifier(self.dropout(pooled))
        return logits
