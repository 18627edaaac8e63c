import torch
import torch.nn as nn

from heads import HEADS


class CharCNN(nn.Module):
    def __init__(self, n_chars, char_dim=30, filters=50, kernel=3):
        super().__init__()
        self.emb = nn.Embedding(n_chars, char_dim, padding_idx=0)
        self.conv = nn.Conv1d(char_dim, filters, kernel, padding=1)
        self.out_dim = filters

    def forward(self, chars):
        b, t, w = chars.shape
        x = self.emb(chars.view(b * t, w)).transpose(1, 2)
        x = torch.relu(self.conv(x)).max(dim=2).values
        return x.view(b, t, -1)


class BiLSTMTagger(nn.Module):
    def __init__(self, n_words, n_chars, num_tags, word_dim=100, hidden=200, dropout=0.5, head="crf",
                 pretrained=None):
        super().__init__()
        self.word_emb = nn.Embedding(n_words, word_dim, padding_idx=0)
        if pretrained is not None:
            self.word_emb.weight.data.copy_(pretrained)
        self.char_cnn = CharCNN(n_chars)
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(word_dim + self.char_cnn.out_dim, hidden, batch_first=True, bidirectional=True)
        self.head = HEADS[head](2 * hidden, num_tags)

    def features(self, words, chars, lengths):
        x = torch.cat([self.word_emb(words), self.char_cnn(chars)], dim=-1)
        x = self.dropout(x)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=words.size(1))
        return self.dropout(out)

    def forward(self, words, chars, lengths):
        return self.head(self.features(words, chars, lengths))

    def decode(self, words, chars, lengths, mask):
        return self.head.decode(self(words, chars, lengths), mask)
