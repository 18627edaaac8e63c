import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import AutoModel


class MLPPooler(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.activation = nn.Tanh()

    def forward(self, features):
        return self.activation(self.dense(features))


class SimCSE(nn.Module):
    def __init__(self, model_name="bert-base-uncased", pooler="cls", temperature=0.05):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(model_name)
        self.pooler_type = pooler
        self.mlp = MLPPooler(self.encoder.config.hidden_size)
        self.temperature = temperature

    def pool(self, outputs, attention_mask):
        if self.pooler_type == "avg":
            mask = attention_mask.unsqueeze(-1).float()
            return (outputs.last_hidden_state * mask).sum(1) / mask.sum(1).clamp_min(1.0)
        return outputs.last_hidden_state[:, 0]

    def encode(self, input_ids, attention_mask, token_type_ids=None, use_mlp=False):
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        emb = self.pool(out, attention_mask)
        return self.mlp(emb) if use_mlp else emb

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        batch_size, num_views, seq_len = input_ids.shape
        flat = lambda t: None if t is None else t.view(batch_size * num_views, seq_len)
        z = self.encode(flat(input_ids), flat(attention_mask), flat(token_type_ids), use_mlp=True)
        z = z.view(batch_size, num_views, -1)
        z1, z2 = z[:, 0], z[:, 1]
        sim = F.cosine_similarity(z1.unsqueeze(1), z2.unsqueeze(0), dim=-1) / self.temperature
        labels = torch.arange(batch_size, device=sim.device)
        return F.cross_entropy(sim, labels), sim

    @torch.no_grad()
    def embed_sentences(self, tokenizer, sentences, device, batch_size=128, max_len=64):
        chunks = []
        for i in range(0, len(sentences), batch_size):
            enc = tokenizer(sentences[i:i + batch_size], padding=True, truncation=True, max_length=max_len,
                            return_tensors="pt").to(device)
            chunks.append(self.encode(enc["input_ids"], enc["attention_mask"], enc.get("token_type_ids")))
        return torch.cat(chunks)
