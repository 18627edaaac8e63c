import torch


class RolloutBuffer:
    def __init__(self, num_steps: int, num_envs: int, obs_shape, device):
        self.num_steps = num_steps
        self.num_envs = num_envs
        self.obs = torch.zeros((num_steps, num_envs) + obs_shape, device=device)
        self.actions = torch.zeros((num_steps, num_envs), device=device)
        self.logprobs = torch.zeros((num_steps, num_envs), device=device)
        self.rewards = torch.zeros((num_steps, num_envs), device=device)
        self.dones = torch.zeros((num_steps, num_envs), device=device)
        self.values = torch.zeros((num_steps, num_envs), device=device)
        self.advantages = torch.zeros((num_steps, num_envs), device=device)
        self.returns = torch.zeros((num_steps, num_envs), device=device)

    def add(self, step, obs, action, logprob, reward, done, value):
        self.obs[step] = obs
        self.actions[step] = action
        self.logprobs[step] = logprob
        self.rewards[step] = reward
        self.dones[step] = done
        self.values[step] = value

    @torch.no_grad()
    def compute_gae(self, next_value, next_done, gamma: float, gae_lambda: float):
        lastgaelam = 0
        for t in reversed(range(self.num_steps)):
            if t == self.num_steps - 1:
                nextnonterminal = 1.0 - next_done
                nextvalues = next_value
            else:
                nextnonterminal = 1.0 - self.dones[t + 1]
                nextvalues = self.values[t + 1]
            delta = self.rewards[t] + gamma * nextvalues * nextnonterminal - self.values[t]
            self.advantages[t] = lastgaelam = delta + gamma * gae_lambda * nextnonterminal * lastgaelam
        self.returns = self.advantages + self.values

    def flatten(self, obs_shape):
        return {
            "obs": self.obs.reshape((-1,) + obs_shape),
            "logprobs": self.logprobs.reshape(-1),
            "actions": self.actions.reshape(-1),
            "advantages": self.advantages.reshape(-1),
            "returns": self.returns.reshape(-1),
            "values": self.values.reshape(-1),
        }


def explained_variance(y_pred, y_true):
    var_y = torch.var(y_true)
    return float("nan") if var_y == 0 else 1 - torch.var(y_true - y_pred).item() / var_y.item()
