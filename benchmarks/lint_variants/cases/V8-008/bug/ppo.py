import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x).squeeze(-1)

    def get_action_and_value(self, x, action=None):
        dist = Categorical(logits=self.actor(x))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.get_value(x)


class PPO:
    def __init__(self, agent, lr=2.5e-4, clip_coef=0.2, ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5,
                 update_epochs=4, num_minibatches=4, norm_adv=True):
        self.agent = agent
        self.optimizer = torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)
        self.clip_coef, self.ent_coef, self.vf_coef = clip_coef, ent_coef, vf_coef
        self.max_grad_norm = max_grad_norm
        self.update_epochs, self.num_minibatches = update_epochs, num_minibatches
        self.norm_adv = norm_adv

    def update(self, storage):
        stats = {"pg_loss": 0.0, "v_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0}
        n = 0
        for _ in range(self.update_epochs):
            for obs, actions, old_logp, adv, returns, _ in storage.minibatches(self.num_minibatches):
                _, newlogp, entropy, newvalue = self.agent.get_action_and_value(obs, actions.long())
                logratio = newlogp - old_logp
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                if self.norm_adv:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio,
                                    -adv * torch.clamp(ratio, 1 - self.clip_coef, 1 + self.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue - returns) ** 2).mean()
                ent = entropy.mean()
                loss = pg_loss - self.ent_coef * ent + self.vf_coef * v_loss

                loss.backward()
                nn.utils.clip_grad_norm_(self.agent.parameters(), self.max_grad_norm)
                self.optimizer.step()

                stats["pg_loss"] += pg_loss.item()
                stats["v_loss"] += v_loss.item()
                stats["entropy"] += ent.item()
                stats["approx_kl"] += approx_kl.item()
                n += 1
        return {k: v / max(n, 1) for k, v in stats.items()}
