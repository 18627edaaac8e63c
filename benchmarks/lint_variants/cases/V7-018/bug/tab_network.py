import numpy as np
import torch
import torch.nn as nn


def sparsemax(z: torch.Tensor, dim: int = -1) -> torch.Tensor:
    z_sorted, _ = torch.sort(z, dim=dim, descending=True)
    k = torch.arange(1, z.size(dim) + 1, device=z.device, dtype=z.dtype)
    shape = [1] * z.dim()
    shape[dim] = -1
    k = k.view(shape)
    z_cumsum = z_sorted.cumsum(dim) - 1
    support = (k * z_sorted) > z_cumsum
    k_z = support.sum(dim=dim, keepdim=True)
    tau = z_cumsum.gather(dim, k_z - 1) / k_z.to(z.dtype)
    return torch.clamp(z - tau, min=0)


class GBN(nn.Module):
    def __init__(self, input_dim, virtual_batch_size=128, momentum=0.02):
        super().__init__()
        self.virtual_batch_size = virtual_batch_size
        self.bn = nn.BatchNorm1d(input_dim, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(int(np.ceil(x.shape[0] / self.virtual_batch_size)), 0)
        return torch.cat([self.bn(x_) for x_ in chunks], dim=0)


class GLUBlock(nn.Module):
    def __init__(self, input_dim, output_dim, n_glu=2, first=False, vbs=128, momentum=0.02):
        super().__init__()
        self.first = first
        self.fcs = nn.ModuleList()
        self.bns = nn.ModuleList()
        for i in range(n_glu):
            self.fcs.append(nn.Linear(input_dim if i == 0 else output_dim, 2 * output_dim, bias=False))
            self.bns.append(GBN(2 * output_dim, vbs, momentum))
        self.output_dim = output_dim

    def forward(self, x):
        scale = torch.sqrt(torch.tensor([0.5], device=x.device))
        for i, (fc, bn) in enumerate(zip(self.fcs, self.bns)):
            h = bn(fc(x))
            h = h[:, : self.output_dim] * torch.sigmoid(h[:, self.output_dim:])
            x = h if (self.first and i == 0) else (x + h) * scale
        return x


class AttentiveTransformer(nn.Module):
    def __init__(self, input_dim, group_dim, vbs=128, momentum=0.02):
        super().__init__()
        self.fc = nn.Linear(input_dim, group_dim, bias=False)
        self.bn = GBN(group_dim, vbs, momentum)

    def forward(self, priors, processed_feat):
        return sparsemax(self.bn(self.fc(processed_feat)) * priors, dim=-1)


class TabNet(nn.Module):
    def __init__(self, input_dim, output_dim, n_d=8, n_a=8, n_steps=3, gamma=1.3, cat_idxs=(), cat_dims=(),
                 cat_emb_dim=1, virtual_batch_size=128, momentum=0.02):
        super().__init__()
        self.cat_idxs = list(cat_idxs)
        self.embeddings = nn.ModuleList(nn.Embedding(d, cat_emb_dim) for d in cat_dims)
        self.post_embed_dim = input_dim + len(self.cat_idxs) * (cat_emb_dim - 1)
        self.n_d, self.n_a, self.n_steps, self.gamma = n_d, n_a, n_steps, gamma
        self.initial_bn = nn.BatchNorm1d(self.post_embed_dim, momentum=0.01)
        self.initial_splitter = GLUBlock(self.post_embed_dim, n_d + n_a, first=True, vbs=virtual_batch_size)
        self.feat_transformers = nn.ModuleList(
            GLUBlock(self.post_embed_dim, n_d + n_a, first=True, vbs=virtual_batch_size) for _ in range(n_steps))
        self.att_transformers = nn.ModuleList(
            AttentiveTransformer(n_a, self.post_embed_dim, virtual_batch_size, momentum) for _ in range(n_steps))
        self.final_mapping = nn.Linear(n_d, output_dim, bias=False)

    def embed(self, x):
        if not self.cat_idxs:
            return x
        cols, c = [], 0
        for i in range(x.shape[1]):
            if i in self.cat_idxs:
                cols.append(self.embeddings[c](x[:, i].long()))
                c += 1
            else:
                cols.append(x[:, i:i + 1].float())
        return torch.cat(cols, dim=1)

    def forward(self, x):
        x = self.initial_bn(self.embed(x))
        prior = torch.ones_like(x)
        att = self.initial_splitter(x)[:, self.n_d:]
        res, m_loss = 0, 0.0
        for step in range(self.n_steps):
            M = self.att_transformers[step](prior, att)
            m_loss = m_loss + torch.mean(torch.sum(M * torch.log(M + 1e-15), dim=1))
            prior = (self.gamma - M) * prior
            out = self.feat_transformers[step](M * x)
            res = res + torch.relu(out[:, : self.n_d])
            att = out[:, self.n_d:]
        return self.final_mapping(res), m_loss / self.n_steps
