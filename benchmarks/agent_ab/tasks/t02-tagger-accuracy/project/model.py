"""Convolutional token tagger: embedding -> two conv blocks -> per-token logits."""
import torch
from torch import nn


class ConvTagger(nn.Module):
    def __init__(self, vocab_size, num_tags, embed_dim=32, channels=64, kernel_size=3,
                 dropout=0.1, pad_id=0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
        pad = kernel_size // 2
        self.conv1 = nn.Conv1d(embed_dim, channels, kernel_size, padding=pad)
        self.conv2 = nn.Conv1d(channels, channels, kernel_size, padding=pad)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(channels, num_tags)

    def forward(self, tokens):
        x = self.embed(tokens).transpose(1, 2)        # (B, E, T)
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(self.drop(x)))
        x = self.drop(x).transpose(1, 2)              # (B, T, C)
        return self.head(x)                           # (B, T, num_tags)


def build_model(cfg):
    d, m = cfg["data"], cfg["model"]
    return ConvTagger(d["vocab_size"], d["num_tags"], m["embed_dim"], m["channels"],
                      m["kernel_size"], m["dropout"], d["pad_id"])
