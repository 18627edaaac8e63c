"""vwxyzjn/cleanrl ppo.py (Schulman et al. 2017): Agent with separate actor and critic MLPs (64-64 Tanh, orthogonal init gains sqrt(2), actor head 0.01, critic head 1.0), Categorical policy; minibatch-normalised advantages, clipped surrogate (clip 0.2), clipped value loss (coef 0.5), entropy bonus 0.01, grad-norm clip 0.5, Adam lr 2.5e-4 eps 1e-5; on a fixed rollout of a contextual bandit."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical

OBS_DIM, N_ACTIONS = 4, 3
ROLLOUT = 128
CLIP_COEF, ENT_COEF, VF_COEF, MAX_GRAD_NORM = 0.2, 0.01, 0.5, 0.5
ENV_SEED = 4321


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(OBS_DIM, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(OBS_DIM, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, N_ACTIONS), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)

    def forward(self, obs, actions):
        _, newlogprob, entropy, newvalue = self.get_action_and_value(obs, actions.long())
        return newlogprob, entropy, newvalue


def ppo_loss(outputs, targets):
    newlogprob, entropy, newvalue = outputs
    b_logprobs, b_advantages, b_returns, b_values = targets
    logratio = newlogprob - b_logprobs
    ratio = logratio.exp()
    mb_advantages = (b_advantages - b_advantages.mean()) / (b_advantages.std() + 1e-8)  # norm_adv
    # Policy loss
    pg_loss1 = -mb_advantages * ratio
    pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - CLIP_COEF, 1 + CLIP_COEF)
    pg_loss = torch.max(pg_loss1, pg_loss2).mean()
    # Value loss (clip_vloss)
    newvalue = newvalue.view(-1)
    v_loss_unclipped = (newvalue - b_returns) ** 2
    v_clipped = b_values + torch.clamp(newvalue - b_values, -CLIP_COEF, CLIP_COEF)
    v_loss_clipped = (v_clipped - b_returns) ** 2
    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
    entropy_loss = entropy.mean()
    return pg_loss - ENT_COEF * entropy_loss + v_loss * VF_COEF


def train_step(agent, batch, optimizer):
    (obs, actions), targets = batch
    loss = ppo_loss(agent(obs, actions), targets)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(agent.parameters(), MAX_GRAD_NORM)
    optimizer.step()
    return loss


def best_action(obs):
    w = torch.randn(OBS_DIM, N_ACTIONS, generator=torch.Generator().manual_seed(ENV_SEED))
    return (obs @ w).argmax(1)


def collect_rollout(agent: Agent, gen: torch.Generator, count: int = ROLLOUT):
    """One-step episodes: reward 1 for the context's best action, 0 otherwise (+ noise); GAE with done=1 gives
    advantage = r - V(s) and return = r."""
    obs = torch.randn(count, OBS_DIM, generator=gen)
    with torch.no_grad():
        logits = agent.actor(obs)
        u = torch.rand(count, 1, generator=gen)
        actions = (torch.softmax(logits, 1).cumsum(1) < u).sum(1).clamp_max(N_ACTIONS - 1)  # sample with gen
        _, logprobs, _, values = agent.get_action_and_value(obs, actions)
    rewards = (actions == best_action(obs)).float() + 0.1 * torch.randn(count, generator=gen)
    values = values.view(-1)
    advantages = rewards - values
    returns = advantages + values
    return (obs, actions), (logprobs, advantages, returns, values)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    agent = Agent()
    gen = torch.Generator().manual_seed(seed)
    spec = {
        "model": agent,
        "batch": collect_rollout(agent, gen),  # collected by this same (old) policy, so the first ratios are 1
        "loss_fn": ppo_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = lambda params: torch.optim.Adam(params, lr=2.5e-4, eps=1e-5)
    return spec
