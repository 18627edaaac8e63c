import torch
import torch.nn as nn


class ConsensusModule(nn.Module):
    """Aggregates per-segment class scores of shape (B, num_segments, C) into video-level scores."""

    def __init__(self, consensus_type="avg", dim=1):
        super().__init__()
        self.consensus_type = consensus_type if consensus_type != "rnn" else "identity"
        self.dim = dim

    def forward(self, input):
        if self.consensus_type == "avg":
            return input.mean(dim=self.dim, keepdim=True)
        if self.consensus_type == "max":
            return input.max(dim=self.dim, keepdim=True).values
        if self.consensus_type == "identity":
            return input
        raise ValueError(f"unknown consensus {self.consensus_type}")


class GroupNormalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(1, -1, 1, 1)
        self.std = torch.tensor(std).view(1, -1, 1, 1)

    def __call__(self, frames):
        return (frames - self.mean) / self.std


class Identity(nn.Module):
    def forward(self, x):
        return x


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].reshape(-1).float().sum(0).item() * 100.0 / batch_size for k in topk]


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)
