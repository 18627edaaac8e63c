import torch
import torch.nn as nn

from modules import MultiHeadAttention


class Encoder(nn.Module):
    def __init__(self, vocab_size, emb_dim=256, hid_dim=512, n_layers=2, dropout=0.3, pad_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_idx)
        self.rnn = nn.GRU(emb_dim, hid_dim, n_layers, batch_first=True, bidirectional=True,
                          dropout=dropout if n_layers > 1 else 0.0)
        self.bridge = nn.Linear(2 * hid_dim, hid_dim)
        self.dropout = nn.Dropout(dropout)
        self.n_layers = n_layers

    def forward(self, src, src_lengths):
        emb = self.dropout(self.embedding(src))
        packed = nn.utils.rnn.pack_padded_sequence(emb, src_lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, hidden = self.rnn(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.size(1))
        hidden = hidden.view(self.n_layers, 2, src.size(0), -1)
        hidden = torch.tanh(self.bridge(torch.cat([hidden[:, 0], hidden[:, 1]], dim=-1)))
        return out, hidden


class AttnDecoder(nn.Module):
    def __init__(self, vocab_size, emb_dim=256, hid_dim=512, enc_dim=1024, n_layers=2, heads=4, dropout=0.3, pad_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_idx)
        self.rnn = nn.GRU(emb_dim + hid_dim, hid_dim, n_layers, batch_first=True,
                          dropout=dropout if n_layers > 1 else 0.0)
        self.attention = MultiHeadAttention(hid_dim, enc_dim, hid_dim, heads, dropout)
        self.out = nn.Linear(2 * hid_dim, vocab_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, tgt_in, enc_out, hidden, src_mask):
        emb = self.dropout(self.embedding(tgt_in))
        b, t, _ = emb.shape
        context = emb.new_zeros(b, 1, hidden.size(-1))
        outputs, attns = [], []
        for i in range(t):
            rnn_out, hidden = self.rnn(torch.cat([emb[:, i:i + 1], context], dim=-1), hidden)
            context, attn = self.attention(rnn_out, enc_out, enc_out, key_padding_mask=src_mask)
            outputs.append(self.out(self.dropout(torch.cat([rnn_out, context], dim=-1))))
            attns.append(attn)
        return torch.cat(outputs, dim=1), hidden, torch.cat(attns, dim=1)


class Seq2Seq(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, pad_idx=0, bos_idx=1, eos_idx=2, **kw):
        super().__init__()
        self.encoder = Encoder(src_vocab, pad_idx=pad_idx)
        self.decoder = AttnDecoder(tgt_vocab, pad_idx=pad_idx)
        self.pad_idx, self.bos_idx, self.eos_idx = pad_idx, bos_idx, eos_idx

    def forward(self, src, src_lengths, tgt_in):
        enc_out, hidden = self.encoder(src, src_lengths)
        logits, _, _ = self.decoder(tgt_in, enc_out, hidden, src.eq(self.pad_idx))
        return logits

    @torch.no_grad()
    def greedy_decode(self, src, src_lengths, max_len=100):
        enc_out, hidden = self.encoder(src, src_lengths)
        mask = src.eq(self.pad_idx)
        ys = torch.full((src.size(0), 1), self.bos_idx, dtype=torch.long, device=src.device)
        for _ in range(max_len):
            logits, _, _ = self.decoder(ys, enc_out, hidden, mask)
            ys = torch.cat([ys, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
            if ys[:, -1].eq(self.eos_idx).all():
                break
        return ys[:, 1:]
