import torch
import torch.nn as nn
import torch.nn.functional as F


class NTXentLoss(nn.Module):
    def __init__(self, temperature=0.1):
        super().__init__()
        self.temperature = temperature

    def forward(self, z_i, z_j):
        batch_size = z_i.size(0)
        z = F.normalize(torch.cat([z_i, z_j], dim=0), dim=1)
        sim = torch.exp(z @ z.t() / self.temperature)
        mask = ~torch.eye(2 * batch_size, dtype=torch.bool, device=z.device)
        pos = torch.cat([torch.diag(sim, batch_size), torch.diag(sim, -batch_size)], dim=0)
        denom = (sim * mask).sum(dim=1)
        loss = -torch.log(pos / denom)
        return loss.mean()
