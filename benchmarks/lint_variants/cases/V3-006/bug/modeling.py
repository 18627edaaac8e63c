import torch
import torch.nn as nn
from transformers import AutoModel


class ClassificationHead(nn.Module):
    def __init__(self, hidden_size, num_labels, dropout=0.1):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.dropout = nn.Dropout(dropout)
        self.out_proj = nn.Linear(hidden_size, num_labels)
        self.act = nn.LogSoftmax(dim=-1)

    def forward(self, features):
        x = features[:, 0, :]
        x = self.dropout(x)
        x = torch.tanh(self.dense(x))
        x = self.dropout(x)
        return self.act(self.out_proj(x))


class SequenceClassifier(nn.Module):
    def __init__(self, encoder_name, num_labels):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(encoder_name)
        self.classifier = ClassificationHead(self.encoder.config.hidden_size, num_labels,
                                             self.encoder.config.hidden_dropout_prob)

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return self.classifier(hidden)
