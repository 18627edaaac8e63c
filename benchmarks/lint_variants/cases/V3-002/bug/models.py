import torch
import torch.nn as nn
import torch.nn.functional as F


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab_size, padding_idx, embed_dim=512, hidden_size=512,
                 num_layers=2, dropout=0.1):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers=num_layers,
                            dropout=dropout, batch_first=True)
        self.output_projection = nn.Linear(hidden_size, vocab_size)

    @classmethod
    def build_model(cls, args, task):
        return cls(len(task.target_dictionary), task.target_dictionary.pad(),
                   args.embed_dim, args.hidden_size, args.num_layers, args.dropout)

    def forward(self, src_tokens, src_lengths=None):
        x = self.dropout(self.embed_tokens(src_tokens))
        x, _ = self.lstm(x)
        x = self.dropout(x)
        return self.output_projection(x), {"src_lengths": src_lengths}

    def get_normalized_probs(self, net_output, log_probs, sample=None):
        logits = net_output[0].float()
        if log_probs:
            return F.log_softmax(logits, dim=-1)
        return F.softmax(logits, dim=-1)

    def get_targets(self, sample, net_output):
        return sample["target"]
