import torch
import torch.nn as nn


def sparsemax(z, dim=-1):
    z_sorted, _ = torch.sort(z, dim=dim, descending=True)
    k = torch.arange(1, z.size(dim) + 1, device=z.device, dtype=z.dtype)
    shape = [1] * z.dim()
    shape[dim] = -1
    k = k.view(shape)
    z_cumsum = z_sorted.cumsum(dim) - 1
    support = (k * z_sorted > z_cumsum).to(z.dtype)
    k_z = support.sum(dim=dim, keepdim=True)
    tau = z_cumsum.gather(dim, k_z.long() - 1) / k_z
    return torch.clamp(z - tau, min=0)


class GhostBatchNorm(nn.Module):
    def __init__(self, dim, virtual_batch_size=256, momentum=0.02):
        super().__init__()
        self.vbs = virtual_batch_size
        self.bn = nn.BatchNorm1d(dim, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(max(1, x.size(0) // self.vbs), 0)
        return torch.cat([self.bn(c) for c in chunks], dim=0)


class GLUBlock(nn.Module):
    def __init__(self, in_dim, out_dim, fc=None, vbs=256, momentum=0.02):
        super().__init__()
        self.fc = fc or nn.Linear(in_dim, 2 * out_dim, bias=False)
        self.bn = GhostBatchNorm(2 * out_dim, vbs, momentum)

    def forward(self, x):
        return nn.functional.glu(self.bn(self.fc(x)), dim=-1)


class FeatTransformer(nn.Module):
    def __init__(self, in_dim, out_dim, shared, n_independent, vbs, momentum):
        super().__init__()
        blocks = [GLUBlock(in_dim if i == 0 else out_dim, out_dim, fc, vbs, momentum) for i, fc in enumerate(shared)]
        for i in range(n_independent):
            blocks.append(GLUBlock(in_dim if not blocks and i == 0 else out_dim, out_dim, vbs=vbs, momentum=momentum))
        self.blocks = nn.ModuleList(blocks)

    def forward(self, x):
        x = self.blocks[0](x)
        for block in self.blocks[1:]:
            x = (x + block(x)) * (0.5 ** 0.5)
        return x


class TabNet(nn.Module):
    def __init__(self, n_num, cat_cardinalities, n_classes, cfg):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.Embedding(c, cfg.cat_emb_dim) for c in cat_cardinalities])
        in_dim = n_num + cfg.cat_emb_dim * len(cat_cardinalities)
        self.initial_bn = nn.BatchNorm1d(in_dim, momentum=0.01)
        hidden = cfg.n_d + cfg.n_a
        shared = [nn.Linear(in_dim if i == 0 else hidden, 2 * hidden, bias=False) for i in range(cfg.n_shared)]
        self.n_d, self.n_steps, self.gamma = cfg.n_d, cfg.n_steps, cfg.gamma
        self.initial = FeatTransformer(in_dim, hidden, shared, cfg.n_independent, cfg.virtual_batch_size, cfg.momentum)
        self.steps = nn.ModuleList([FeatTransformer(in_dim, hidden, shared, cfg.n_independent,
                                                    cfg.virtual_batch_size, cfg.momentum) for _ in range(cfg.n_steps)])
        self.attentive = nn.ModuleList([nn.Sequential(nn.Linear(cfg.n_a, in_dim, bias=False),
                                                      GhostBatchNorm(in_dim, cfg.virtual_batch_size, cfg.momentum))
                                        for _ in range(cfg.n_steps)])
        self.head = nn.Linear(cfg.n_d, n_classes)

    def forward(self, x_num, x_cat):
        x = torch.cat([x_num] + [emb(x_cat[:, i]) for i, emb in enumerate(self.embeddings)], dim=1)
        x = self.initial_bn(x)
        prior = torch.ones_like(x)
        att = self.initial(x)[:, self.n_d:]
        out, m_loss = 0.0, 0.0
        for step, attentive in zip(self.steps, self.attentive):
            mask = sparsemax(attentive(att) * prior)
            m_loss = m_loss + torch.mean(torch.sum(-mask * torch.log(mask + 1e-15), dim=1))
            prior = prior * (self.gamma - mask)
            h = step(x * mask)
            out = out + torch.relu(h[:, : self.n_d])
            att = h[:, self.n_d:]
        return self.head(out), m_loss / self.n_steps
