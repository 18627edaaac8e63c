import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import AutoConfig, AutoModel


class MeanPooling(nn.Module):
    def forward(self, last_hidden_state, attention_mask):
        mask = attention_mask.unsqueeze(-1).float()
        return (last_hidden_state * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


class EssayScorer(nn.Module):
    def __init__(self, model_name, num_targets=6, dropout_rates=(0.1, 0.2, 0.3, 0.4, 0.5)):
        super().__init__()
        self.config = AutoConfig.from_pretrained(model_name, output_hidden_states=False)
        self.backbone = AutoModel.from_pretrained(model_name, config=self.config)
        self.pool = MeanPooling()
        self.dropout_rates = dropout_rates
        self.fc = nn.Linear(self.config.hidden_size, num_targets)
        nn.init.normal_(self.fc.weight, std=self.config.initializer_range)
        nn.init.zeros_(self.fc.bias)

    def forward(self, input_ids, attention_mask, labels=None):
        hidden = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        feature = self.pool(hidden, attention_mask)
        logits = torch.stack(
            [self.fc(F.dropout(feature, p, True)) for p in self.dropout_rates], dim=0
        ).mean(0)
        return {"logits": logits}
