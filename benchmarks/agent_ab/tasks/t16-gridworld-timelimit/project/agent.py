"""DQN agent: Q-network, epsilon-greedy policy, TD update with a target network."""
import copy

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F


class QNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, n_actions))

    def forward(self, obs):
        return self.net(obs)


class DQNAgent:
    def __init__(self, obs_dim, n_actions, hidden=64, gamma=0.95, lr=1e-3, target_sync=200,
                 double_q=False, seed=0):
        self.q = QNetwork(obs_dim, n_actions, hidden)
        self.target = copy.deepcopy(self.q)
        self.opt = torch.optim.Adam(self.q.parameters(), lr=lr)
        self.gamma, self.target_sync, self.double_q = gamma, target_sync, double_q
        self.n_actions = n_actions
        self.rng = np.random.default_rng(seed)
        self.updates = 0

    @torch.no_grad()
    def act(self, obs, epsilon=0.0):
        if self.rng.random() < epsilon:
            return int(self.rng.integers(self.n_actions))
        return int(self.q(torch.as_tensor(obs).unsqueeze(0)).argmax(1).item())

    @torch.no_grad()
    def value(self, obs):
        return self.q(torch.as_tensor(obs).unsqueeze(0)).max(1).values.item()

    @torch.no_grad()
    def td_target(self, rewards, next_obs, dones):
        if self.double_q:
            a = self.q(next_obs).argmax(1, keepdim=True)
            next_q = self.target(next_obs).gather(1, a).squeeze(1)
        else:
            next_q = self.target(next_obs).max(1).values
        return rewards + self.gamma * (1.0 - dones) * next_q

    def update(self, batch):
        obs, actions, rewards, next_obs, dones = batch
        q = self.q(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
        loss = F.smooth_l1_loss(q, self.td_target(rewards, next_obs, dones))
        self.opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.q.parameters(), 10.0)
        self.opt.step()
        self.updates += 1
        return loss.item()

    def sync_target(self):
        self.target.load_state_dict(self.q.state_dict())


def build_agent(cfg, obs_dim, n_actions):
    a = cfg["agent"]
    return DQNAgent(obs_dim, n_actions, a["hidden"], a["gamma"], a["lr"], a["target_sync"],
                    a.get("double_q", False), seed=int(cfg["seed"]))
