import torch


class RolloutStorage:
    def __init__(self, num_steps, num_envs, obs_shape, action_shape, device):
        self.obs = torch.zeros((num_steps, num_envs) + obs_shape, device=device)
        self.actions = torch.zeros((num_steps, num_envs) + action_shape, device=device)
        self.logprobs = torch.zeros((num_steps, num_envs), device=device)
        self.rewards = torch.zeros((num_steps, num_envs), device=device)
        self.dones = torch.zeros((num_steps, num_envs), device=device)
        self.values = torch.zeros((num_steps, num_envs), device=device)
        self.advantages = torch.zeros((num_steps, num_envs), device=device)
        self.returns = torch.zeros((num_steps, num_envs), device=device)
        self.num_steps = num_steps
        self.step = 0

    def insert(self, obs, action, logprob, reward, done, value):
        self.obs[self.step] = obs
        self.actions[self.step] = action
        self.logprobs[self.step] = logprob
        self.rewards[self.step] = reward
        self.dones[self.step] = done
        self.values[self.step] = value
        self.step = (self.step + 1) % self.num_steps

    @torch.no_grad()
    def compute_gae(self, next_value, next_done, gamma=0.99, gae_lambda=0.95):
        lastgaelam = 0
        for t in reversed(range(self.num_steps)):
            if t == self.num_steps - 1:
                nextnonterminal = 1.0 - next_done
                nextvalues = next_value
            else:
                nextnonterminal = 1.0 - self.dones[t + 1]
                nextvalues = self.values[t + 1]
            delta = self.rewards[t] + gamma * nextvalues * nextnonterminal - self.values[t]
            lastgaelam = delta + gamma * gae_lambda * nextnonterminal * lastgaelam
            self.advantages[t] = lastgaelam
        self.returns = self.advantages + self.values

    def minibatches(self, num_minibatches):
        obs_shape = self.obs.shape[2:]
        b_obs = self.obs.reshape((-1,) + obs_shape)
        b_actions = self.actions.reshape((-1,) + self.actions.shape[2:])
        flat = [b_obs, b_actions, self.logprobs.reshape(-1), self.advantages.reshape(-1),
                self.returns.reshape(-1), self.values.reshape(-1)]
        batch_size = b_obs.shape[0]
        mb_size = batch_size // num_minibatches
        perm = torch.randperm(batch_size, device=b_obs.device)
        for start in range(0, batch_size, mb_size):
            idx = perm[start:start + mb_size]
            yield [t[idx] for t in flat]
