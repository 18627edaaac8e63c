"""DQN (Mnih et al. 2015, Nature): Q-network (an MLP in place of the Atari conv net) and a frozen target network hard-copied every C updates (C=10 here, 10000 there), TD target r + gamma (1 - done) max_a' Q_target(s', a') with gamma 0.99, Huber (smooth L1) loss, RMSprop alpha 0.95 eps 0.01 centered with lr 2.5e-3 (10x the paper's 2.5e-4, so that 200 updates converge); replay batch of a small layered random MDP."""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn

LEVELS, WIDTH, ACTIONS = 3, 4, 3
STATES = LEVELS * WIDTH
GAMMA = 0.99
TARGET_UPDATE = 10
BATCH = 128
HIDDEN = 64
MDP_SEED = 1234


class QNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(STATES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, ACTIONS))

    def forward(self, obs):
        return self.net(obs)


class DQNAgent(nn.Module):
    """forward(transitions) -> (Q(s, a) from the online net, the TD target from the frozen target net)."""

    def __init__(self):
        super().__init__()
        self.q_net = QNetwork()
        self.target_net = copy.deepcopy(self.q_net)
        for p in self.target_net.parameters():
            p.requires_grad_(False)
        self.updates = 0

    def forward(self, obs, actions, rewards, next_obs, dones):
        q_sa = self.q_net(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target_max = self.target_net(next_obs).max(dim=1)[0]
            td_target = rewards + GAMMA * target_max * (1 - dones)
        return q_sa, td_target

    def sync_target(self):
        self.target_net.load_state_dict(self.q_net.state_dict())


def td_huber_loss(outputs, _targets=None):
    q_sa, td_target = outputs
    return F.smooth_l1_loss(q_sa, td_target)


def train_step(model: DQNAgent, batch, optimizer):
    transitions, _ = batch
    optimizer.zero_grad()
    loss = td_huber_loss(model(*transitions))
    loss.backward()
    optimizer.step()
    model.updates += 1
    if model.updates % TARGET_UPDATE == 0:
        model.sync_target()
    return loss


def make_mdp():
    """Fixed layered MDP: 3 levels of 4 states; each action of a state gives reward r(s, a) in [0, 1] and moves to a
    fixed state of the next level; acting in the last level ends the episode."""
    g = torch.Generator().manual_seed(MDP_SEED)
    reward = torch.rand(STATES, ACTIONS, generator=g)
    level = torch.arange(STATES) // WIDTH
    succ = (level[:, None] + 1).clamp_max(LEVELS - 1) * WIDTH + torch.randint(0, WIDTH, (STATES, ACTIONS), generator=g)
    terminal = (level == LEVELS - 1)[:, None].expand(STATES, ACTIONS)
    return reward, succ, terminal.float()


def optimal_q(iterations: int = 20):
    reward, succ, terminal = make_mdp()
    q = torch.zeros(STATES, ACTIONS)
    for _ in range(iterations):
        q = reward + GAMMA * (1 - terminal) * q.max(1)[0][succ]
    return q


def make_replay(gen: torch.Generator, count: int = BATCH):
    reward, succ, terminal = make_mdp()
    s = torch.randint(0, STATES, (count,), generator=gen)
    a = torch.randint(0, ACTIONS, (count,), generator=gen)
    obs, next_obs = F.one_hot(s, STATES).float(), F.one_hot(succ[s, a], STATES).float()
    return obs, a, reward[s, a], next_obs, terminal[s, a]


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    spec = {
        "model": DQNAgent(),
        "batch": (make_replay(gen), None),
        "loss_fn": td_huber_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = lambda params: torch.optim.RMSprop(params, lr=2.5e-3, alpha=0.95, eps=0.01, centered=True)
    return spec
