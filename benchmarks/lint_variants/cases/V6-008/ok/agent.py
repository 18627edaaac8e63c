import torch
import torch.nn.functional as F

from networks import Actor, Critic


class A2CAgent:
    def __init__(self, obs_dim, act_dim, actor_lr=3e-4, critic_lr=1e-3, gamma=0.99, ent_coef=0.01):
        self.actor = Actor(obs_dim, act_dim)
        self.critic = Critic(obs_dim)
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=actor_lr)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=critic_lr)
        self.gamma = gamma
        self.ent_coef = ent_coef

    @torch.no_grad()
    def act(self, obs):
        dist = self.actor(torch.as_tensor(obs, dtype=torch.float32))
        return dist.sample().item()

    def compute_returns(self, rewards, dones, last_value):
        returns = []
        R = last_value
        for r, d in zip(reversed(rewards), reversed(dones)):
            R = r + self.gamma * R * (1.0 - d)
            returns.insert(0, R)
        return torch.tensor(returns, dtype=torch.float32)

    def update(self, obs, actions, rewards, dones, last_obs):
        obs = torch.as_tensor(obs, dtype=torch.float32)
        actions = torch.as_tensor(actions)
        with torch.no_grad():
            last_value = self.critic(torch.as_tensor(last_obs, dtype=torch.float32)).item()
        returns = self.compute_returns(rewards, dones, last_value)

        values = self.critic(obs)
        advantages = (returns - values).detach()
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

        critic_loss = F.mse_loss(values, returns)
        self.critic_optim.zero_grad()
        critic_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.critic.parameters(), 0.5)
        self.critic_optim.step()

        dist = self.actor(obs)
        actor_loss = -(dist.log_prob(actions) * advantages).mean() - self.ent_coef * dist.entropy().mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.actor.parameters(), 0.5)
        self.actor_optim.step()
        return actor_loss.item(), critic_loss.item()
