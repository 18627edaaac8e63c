import torch
import torch.nn as nn
import torch.nn.functional as F


class TrOCRAttention(nn.Module):
    def __init__(self, config, is_cross_attention=False):
        super().__init__()
        self.num_heads = config.num_heads
        self.head_dim = config.d_model // config.num_heads
        self.attn_dropout = config.attention_dropout
        self.q_proj = nn.Linear(config.d_model, config.d_model)
        self.k_proj = nn.Linear(config.d_model, config.d_model)
        self.v_proj = nn.Linear(config.d_model, config.d_model)
        self.out_proj = nn.Linear(config.d_model, config.d_model)
        self.is_cross_attention = is_cross_attention

    def _shape(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, hidden_states, key_value_states=None, attn_mask=None, is_causal=False):
        kv = hidden_states if key_value_states is None else key_value_states
        q, k, v = self._shape(self.q_proj(hidden_states)), self._shape(self.k_proj(kv)), self._shape(self.v_proj(kv))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=self.attn_dropout,
                                             is_causal=is_causal and attn_mask is None)
        b, h, t, d = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(b, t, h * d))


class EncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm1 = nn.LayerNorm(config.d_model)
        self.attn = TrOCRAttention(config)
        self.norm2 = nn.LayerNorm(config.d_model)
        self.mlp = nn.Sequential(nn.Linear(config.d_model, config.ffn_dim), nn.GELU(), nn.Dropout(config.dropout),
                                 nn.Linear(config.ffn_dim, config.d_model), nn.Dropout(config.dropout))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class DecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = TrOCRAttention(config)
        self.cross_attn = TrOCRAttention(config, is_cross_attention=True)
        self.norms = nn.ModuleList([nn.LayerNorm(config.d_model) for _ in range(3)])
        self.mlp = nn.Sequential(nn.Linear(config.d_model, config.ffn_dim), nn.GELU(), nn.Dropout(config.dropout),
                                 nn.Linear(config.ffn_dim, config.d_model))
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x, memory):
        x = x + self.dropout(self.self_attn(self.norms[0](x), is_causal=True))
        x = x + self.dropout(self.cross_attn(self.norms[1](x), key_value_states=memory))
        return x + self.dropout(self.mlp(self.norms[2](x)))


class TrOCRModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.patch_embed = nn.Conv2d(config.num_channels, config.d_model, config.patch_size, config.patch_size)
        self.enc_pos = nn.Parameter(torch.zeros(1, config.num_patches, config.d_model))
        self.encoder = nn.ModuleList([EncoderLayer(config) for _ in range(config.encoder_layers)])
        self.enc_norm = nn.LayerNorm(config.d_model)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.d_model, padding_idx=config.pad_token_id)
        self.dec_pos = nn.Embedding(config.max_target_len, config.d_model)
        self.decoder = nn.ModuleList([DecoderLayer(config) for _ in range(config.decoder_layers)])
        self.dec_norm = nn.LayerNorm(config.d_model)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        nn.init.trunc_normal_(self.enc_pos, std=0.02)

    def encode(self, pixel_values):
        x = self.patch_embed(pixel_values).flatten(2).transpose(1, 2) + self.enc_pos
        for layer in self.encoder:
            x = layer(x)
        return self.enc_norm(x)

    def decode(self, input_ids, memory):
        pos = torch.arange(input_ids.size(1), device=input_ids.device)
        x = self.embed_tokens(input_ids) + self.dec_pos(pos)
        for layer in self.decoder:
            x = layer(x, memory)
        return self.lm_head(self.dec_norm(x))

    def forward(self, pixel_values, decoder_input_ids):
        return self.decode(decoder_input_ids, self.encode(pixel_values))

    @torch.no_grad()
    def generate(self, pixel_values, max_length=None):
        max_length = max_length or self.config.max_target_len
        memory = self.encode(pixel_values)
        ids = torch.full((pixel_values.size(0), 1), self.config.bos_token_id, device=pixel_values.device)
        done = torch.zeros(pixel_values.size(0), dtype=torch.bool, device=pixel_values.device)
        for _ in range(max_length - 1):
            nxt = self.decode(ids, memory)[:, -1].argmax(-1)
            nxt = nxt.masked_fill(done, self.config.pad_token_id)
            ids = torch.cat([ids, nxt[:, None]], dim=1)
            done |= nxt == self.config.eos_token_id
            if done.all():
                break
        return ids
