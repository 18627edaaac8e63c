import torch.nn as nn
import torch.nn.functional as F
import torchvision


class SimCLR(nn.Module):
    def __init__(self, feature_dim=128):
        super().__init__()
        resnet = torchvision.models.resnet18()
        resnet.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        resnet.maxpool = nn.Identity()
        resnet.fc = nn.Identity()
        self.f = resnet
        self.g = nn.Sequential(nn.Linear(512, 512, bias=False), nn.BatchNorm1d(512), nn.ReLU(inplace=True),
                               nn.Linear(512, feature_dim, bias=True))

    def forward(self, x):
        feature = self.f(x)
        out = self.g(feature)
        return F.normalize(feature, dim=-1), F.normalize(out, dim=-1)


def nt_xent(out_1, out_2, temperature):
    import torch
    out = torch.cat([out_1, out_2], dim=0)
    n = out_1.size(0)
    sim = out @ out.t() / temperature
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(out.device)
    return F.cross_entropy(sim, targets)
