import copy

import numpy as np
import torch
import torch.nn.functional as F

from networks import Actor, Critic


class DDPGAgent:
    def __init__(self, obs_dim, act_dim, act_limit, cfg, device="cpu"):
        self.device = device
        self.gamma = cfg["gamma"]
        self.tau = cfg["tau"]
        self.act_noise = cfg["act_noise"]
        self.act_limit = act_limit

        self.actor = Actor(obs_dim, act_dim, act_limit=act_limit).to(device)
        self.critic = Critic(obs_dim, act_dim).to(device)
        self.actor_target = copy.deepcopy(self.actor)
        self.critic_target = copy.deepcopy(self.critic)
        for p in list(self.actor_target.parameters()) + list(self.critic_target.parameters()):
            p.requires_grad = False

        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=cfg["actor_lr"])
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=cfg["critic_lr"])

    @torch.no_grad()
    def act(self, obs, explore=True):
        obs = torch.as_tensor(obs, dtype=torch.float32, device=self.device)
        a = self.actor(obs).cpu().numpy()
        if explore:
            a += self.act_noise * np.random.randn(*a.shape)
        return np.clip(a, -self.act_limit, self.act_limit)

    def update(self, batch):
        obs, act, rew, obs2, done = (torch.as_tensor(x, dtype=torch.float32, device=self.device)
                                     for x in batch)

        with torch.no_grad():
            q_targ = self.critic_target(obs2, self.actor_target(obs2))
            backup = rew + self.gamma * (1 - done) * q_targ
        q = self.critic(obs, act)
        critic_loss = F.mse_loss(q, backup)
        self.critic_optim.zero_grad()
        critic_loss.backward()
        self.critic_optim.step()

        for p in self.critic.parameters():
            p.requires_grad = False
        actor_loss = -self.critic(obs, self.actor(obs)).mean()
        actor_loss.backward()
        self.actor_optim.step()
        for p in self.critic.parameters():
            p.requires_grad = True

        with torch.no_grad():
            for net, targ in ((self.actor, self.actor_target), (self.critic, self.critic_target)):
                for p, p_targ in zip(net.parameters(), targ.parameters()):
                    p_targ.mul_(1 - self.tau).add_(self.tau * p)

        return {"critic_loss": critic_loss.item(), "actor_loss": actor_loss.item()}
