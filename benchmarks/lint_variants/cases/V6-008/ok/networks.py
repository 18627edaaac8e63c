import torch
import torch.nn as nn
from torch.distributions import Categorical


def mlp(sizes, activation=nn.Tanh):
    layers = []
    for j in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[j], sizes[j + 1]))
        if j < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=(64, 64)):
        super().__init__()
        self.logits_net = mlp([obs_dim, *hidden, act_dim])

    def forward(self, obs):
        return Categorical(logits=self.logits_net(obs))


class Critic(nn.Module):
    def __init__(self, obs_dim, hidden=(64, 64)):
        super().__init__()
        self.v_net = mlp([obs_dim, *hidden, 1])

    def forward(self, obs):
        return self.v_net(obs).squeeze(-1)
