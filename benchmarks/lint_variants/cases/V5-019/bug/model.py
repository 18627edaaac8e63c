import torch
import torch.nn as nn
import torch.nn.functional as F


class TextCNN(nn.Module):
    def __init__(self, vocab_size, embed_dim=300, num_filters=100, kernel_sizes=(3, 4, 5), num_classes=2, dropout=0.5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv1d(embed_dim, num_filters, k) for k in kernel_sizes])
        self.fc = nn.Linear(num_filters * len(kernel_sizes), num_classes)
        self.dropout = dropout

    def forward(self, input_ids):
        x = self.embedding(input_ids).transpose(1, 2)
        x = [F.relu(conv(x)).max(dim=2).values for conv in self.convs]
        x = torch.cat(x, dim=1)
        x = F.dropout(x, p=self.dropout)
        return self.fc(x)
