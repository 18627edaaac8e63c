import torch
import torch.nn as nn

POLICIES = {}


def register(name):
    def deco(cls):
        POLICIES[name] = cls
        return cls
    return deco


@register("mlp")
class MLPPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=(256, 256), dropout=0.1, act_limit=1.0):
        super().__init__()
        layers, prev = [], obs_dim
        for h in hidden:
            layers += [nn.Linear(prev, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(dropout)]
            prev = h
        self.body = nn.Sequential(*layers)
        self.mu = nn.Linear(prev, act_dim)
        self.act_limit = act_limit

    def forward(self, obs):
        return self.act_limit * torch.tanh(self.mu(self.body(obs)))

    @torch.no_grad()
    def act(self, obs):
        return self(obs)


@register("gaussian")
class GaussianPolicy(MLPPolicy):
    def __init__(self, obs_dim, act_dim, **kwargs):
        super().__init__(obs_dim, act_dim, **kwargs)
        self.log_std = nn.Parameter(torch.full((act_dim,), -0.5))

    def log_prob(self, obs, actions):
        mean = super().forward(obs)
        dist = torch.distributions.Normal(mean, self.log_std.exp())
        return dist.log_prob(actions).sum(-1)


def build_policy(name, obs_dim, act_dim, **kwargs):
    if name not in POLICIES:
        raise KeyError(f"unknown policy {name}; available: {sorted(POLICIES)}")
    return POLICIES[name](obs_dim, act_dim, **kwargs)


class ObsNormalizer(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.as_tensor(std, dtype=torch.float32).clamp_min(1e-6))

    def forward(self, obs):
        return (obs - self.mean) / self.std
