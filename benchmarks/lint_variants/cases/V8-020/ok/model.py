import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import AutoModel


class SpanExtractor(nn.Module):
    def __init__(self, model_name="roberta-base", dropout=0.1):
        super().__init__()
        self.backbone = AutoModel.from_pretrained(model_name)
        hidden = self.backbone.config.hidden_size
        self.dropout = nn.Dropout(dropout)
        self.qa_outputs = nn.Linear(hidden, 2)

    def forward(self, input_ids, attention_mask, token_type_ids=None, start_positions=None, end_positions=None):
        kwargs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None and self.backbone.config.type_vocab_size > 1:
            kwargs["token_type_ids"] = token_type_ids
        hidden = self.backbone(**kwargs).last_hidden_state
        logits = self.qa_outputs(self.dropout(hidden))
        start_logits, end_logits = logits.split(1, dim=-1)
        start_logits = start_logits.squeeze(-1).masked_fill(attention_mask == 0, -1e4)
        end_logits = end_logits.squeeze(-1).masked_fill(attention_mask == 0, -1e4)
        out = {"start_logits": start_logits, "end_logits": end_logits}
        if start_positions is not None and end_positions is not None:
            seq_len = start_logits.size(1)
            start_positions = start_positions.clamp(0, seq_len - 1)
            end_positions = end_positions.clamp(0, seq_len - 1)
            out["loss"] = 0.5 * (F.cross_entropy(start_logits, start_positions) +
                                 F.cross_entropy(end_logits, end_positions))
        return out


def param_groups(model, weight_decay=0.01):
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight")
    decay, skip = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (skip if any(nd in name for nd in no_decay) else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": skip, "weight_decay": 0.0}]


def save_checkpoint(model, tokenizer, path):
    import os
    os.makedirs(path, exist_ok=True)
    module = model.module if hasattr(model, "module") else model
    module.backbone.save_pretrained(path)
    tokenizer.save_pretrained(path)
    torch.save(module.qa_outputs.state_dict(), os.path.join(path, "qa_head.bin"))
