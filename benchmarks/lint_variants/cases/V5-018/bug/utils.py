import numpy as np
import torch


class ReplayBuffer:
    def __init__(self, dataset, device):
        self.obs = torch.as_tensor(dataset["observations"], dtype=torch.float32, device=device)
        self.actions = torch.as_tensor(dataset["actions"], dtype=torch.float32, device=device)
        self.size = len(self.obs)

    def sample(self, batch_size):
        idx = torch.randint(0, self.size, (batch_size,), device=self.obs.device)
        return self.obs[idx], self.actions[idx]


def evaluate_policy(policy, env, device, n_episodes=10, seed=0):
    policy.eval()
    returns = []
    for ep in range(n_episodes):
        obs, _ = env.reset(seed=seed + ep)
        done, ep_ret = False, 0.0
        while not done:
            action = policy.act(obs, device)
            obs, reward, terminated, truncated, _ = env.step(action)
            ep_ret += reward
            done = terminated or truncated
        returns.append(ep_ret)
    return {"return_mean": float(np.mean(returns)), "return_std": float(np.std(returns))}
