import torch
import torch.nn as nn
from transformers import AutoModel


class BertCNNForTokenTagging(nn.Module):
    """BERT encoder followed by a 1-D convolution over the token axis."""

    def __init__(self, model_name, num_labels, kernel_size=3, conv_channels=256, dropout=0.1):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(model_name)
        hidden = self.encoder.config.hidden_size
        self.dropout = nn.Dropout(dropout)
        self.conv = nn.Conv1d(hidden, conv_channels, kernel_size, padding=kernel_size // 2)
        self.act = nn.GELU()
        self.classifier = nn.Linear(conv_channels, num_labels)
        self.num_labels = num_labels

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        seq = self.dropout(out.last_hidden_state)          # (B, T, H)
        bsz, seq_len, hidden = seq.shape
        feats = self.act(self.conv(seq.transpose(1, 2)))   # (B, C, T)
        logits = self.classifier(feats.transpose(1, 2))                # (B, T, num_labels)
        return {"logits": logits}
