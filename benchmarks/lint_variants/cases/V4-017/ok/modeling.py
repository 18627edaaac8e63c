import torch
import torch.nn as nn
from transformers import AutoModel


class MeanPooling(nn.Module):
    def forward(self, last_hidden_state, attention_mask):
        mask = attention_mask.unsqueeze(-1).float()
        return (last_hidden_state * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


class EssayScorer(nn.Module):
    def __init__(self, model_name, num_targets=6, dropout=0.1):
        super().__init__()
        self.backbone = AutoModel.from_pretrained(model_name)
        hidden = self.backbone.config.hidden_size
        self.pool = MeanPooling()
        self.attn_pool = nn.Sequential(nn.Linear(hidden, 256), nn.Tanh(), nn.Linear(256, 1))
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(2 * hidden, num_targets)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        w = self.attn_pool(h).squeeze(-1).masked_fill(attention_mask == 0, -1e4).softmax(-1)
        attn_feat = torch.bmm(w.unsqueeze(1), h).squeeze(1)
        feat = torch.cat([self.pool(h, attention_mask), attn_feat], dim=-1)
        preds = self.head(self.dropout(feat))
        loss = None
        if labels is not None:
            loss = nn.functional.smooth_l1_loss(preds, labels)
        return {"loss": loss, "logits": preds}
