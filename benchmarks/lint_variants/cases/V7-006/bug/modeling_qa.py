from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
from transformers import AutoConfig, AutoModel
from transformers.utils import ModelOutput


@dataclass
class SpanQAOutput(ModelOutput):
    loss: Optional[torch.Tensor] = None
    start_scores: torch.Tensor = None
    end_scores: torch.Tensor = None


class SpanHead(nn.Module):
    def __init__(self, hidden_size: int, dropout: float = 0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.qa_outputs = nn.Linear(hidden_size, 2)
        nn.init.normal_(self.qa_outputs.weight, std=0.02)
        nn.init.zeros_(self.qa_outputs.bias)

    def forward(self, hidden_states: torch.Tensor, context_mask: Optional[torch.Tensor] = None):
        logits = self.qa_outputs(self.dropout(hidden_states))
        start, end = logits.split(1, dim=-1)
        start, end = start.squeeze(-1), end.squeeze(-1)
        if context_mask is not None:
            start = start.masked_fill(context_mask == 0, -1e4)
            end = end.masked_fill(context_mask == 0, -1e4)
        return start.softmax(dim=-1), end.softmax(dim=-1)


class EncoderForSpanQA(nn.Module):
    """Any AutoModel encoder plus a start/end span head (SQuAD v1/v2)."""

    def __init__(self, model_name_or_path: str, head_dropout: float = 0.1):
        super().__init__()
        self.config = AutoConfig.from_pretrained(model_name_or_path)
        self.encoder = AutoModel.from_pretrained(model_name_or_path, config=self.config, add_pooling_layer=False)
        self.head = SpanHead(self.config.hidden_size, head_dropout)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, context_mask=None, **kwargs):
        enc = self.encoder(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        if context_mask is not None:
            context_mask = context_mask.clone()
            context_mask[:, 0] = 1
        start_scores, end_scores = self.head(enc.last_hidden_state, context_mask)
        return SpanQAOutput(start_scores=start_scores, end_scores=end_scores)

    def save_pretrained(self, output_dir: str):
        import os

        os.makedirs(output_dir, exist_ok=True)
        self.config.save_pretrained(output_dir)
        torch.save(self.state_dict(), os.path.join(output_dir, "pytorch_model.bin"))
