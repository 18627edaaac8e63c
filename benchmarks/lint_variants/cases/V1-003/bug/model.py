import torch
from torch import nn

from kerasish import KerasModel


class ToxicCommentNet(KerasModel):
    def __init__(self, vocab_size, num_labels=6, embed_dim=300, hidden=128, dropout=0.3):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.spatial_drop = nn.Dropout(0.2)
        self.gru = nn.GRU(embed_dim, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Sequential(
            nn.Linear(4 * hidden, hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, num_labels),
        )

    def forward(self, tokens):
        x = self.spatial_drop(self.embedding(tokens))
        h, _ = self.gru(x)
        pooled = torch.cat([h.mean(dim=1), h.max(dim=1).values], dim=1)
        return torch.sigmoid(self.fc(pooled))
