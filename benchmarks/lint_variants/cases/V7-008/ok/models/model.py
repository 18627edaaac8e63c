import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pe = torch.zeros(max_len, d_model).float()
        position = torch.arange(0, max_len).float().unsqueeze(1)
        div_term = (torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.pe[:, : x.size(1)]


class DataEmbedding(nn.Module):
    def __init__(self, c_in, d_model, n_time_feats=4, dropout=0.1):
        super().__init__()
        self.value_embedding = nn.Conv1d(c_in, d_model, kernel_size=3, padding=1, padding_mode="circular")
        self.position_embedding = PositionalEmbedding(d_model)
        self.temporal_embedding = nn.Linear(n_time_feats, d_model, bias=False)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x, x_mark):
        v = self.value_embedding(x.permute(0, 2, 1)).transpose(1, 2)
        return self.dropout(v + self.position_embedding(x) + self.temporal_embedding(x_mark))


class DistilLayer(nn.Module):
    def __init__(self, c_in):
        super().__init__()
        self.down = nn.Conv1d(c_in, c_in, kernel_size=3, padding=1, padding_mode="circular")
        self.norm = nn.BatchNorm1d(c_in)
        self.pool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        x = self.pool(F.elu(self.norm(self.down(x.permute(0, 2, 1)))))
        return x.transpose(1, 2)


class Informer(nn.Module):
    def __init__(self, enc_in, dec_in, c_out, seq_len, label_len, out_len, d_model=512, n_heads=8, e_layers=2,
                 d_layers=1, d_ff=2048, dropout=0.05, distil=True, output_attention=False):
        super().__init__()
        self.pred_len = out_len
        self.output_attention = output_attention
        self.enc_embedding = DataEmbedding(enc_in, d_model, dropout=dropout)
        self.dec_embedding = DataEmbedding(dec_in, d_model, dropout=dropout)
        self.encoder_layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout, activation="gelu", batch_first=True)
            for _ in range(e_layers))
        self.distil = nn.ModuleList(DistilLayer(d_model) for _ in range(e_layers - 1)) if distil else None
        self.enc_norm = nn.LayerNorm(d_model)
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d_model, n_heads, d_ff, dropout, activation="gelu", batch_first=True),
            num_layers=d_layers, norm=nn.LayerNorm(d_model))
        self.projection = nn.Linear(d_model, c_out, bias=True)

    def forward(self, x_enc, x_mark_enc, x_dec, x_mark_dec):
        enc_out = self.enc_embedding(x_enc, x_mark_enc)
        for i, layer in enumerate(self.encoder_layers):
            enc_out = layer(enc_out)
            if self.distil is not None and i < len(self.distil):
                enc_out = self.distil[i](enc_out)
        enc_out = self.enc_norm(enc_out)
        dec_out = self.dec_embedding(x_dec, x_mark_dec)
        L = dec_out.size(1)
        causal = torch.triu(torch.full((L, L), float("-inf"), device=dec_out.device), diagonal=1)
        dec_out = self.decoder(dec_out, enc_out, tgt_mask=causal)
        return self.projection(dec_out)[:, -self.pred_len:, :]
