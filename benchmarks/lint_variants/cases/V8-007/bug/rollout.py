import logging

import gymnasium as gym
import numpy as np
import torch

logger = logging.getLogger(__name__)


def make_vec_env(env_id, n_envs, seed):
    env = gym.vector.SyncVectorEnv([lambda: gym.make(env_id) for _ in range(n_envs)])
    env.reset(seed=seed)
    return env


def evaluate_policy(policy, normalizer, env_id, n_envs=8, episodes=16, seed=1000, device="cpu"):
    env = make_vec_env(env_id, n_envs, seed)
    returns, lengths = [], []
    obs, _ = env.reset(seed=seed)
    ep_ret = np.zeros(n_envs)
    ep_len = np.zeros(n_envs, dtype=np.int64)
    while len(returns) < episodes:
        obs_t = normalizer(torch.as_tensor(obs, dtype=torch.float32, device=device))
        action = policy.act(obs_t).cpu().numpy()
        obs, reward, terminated, truncated, _ = env.step(action)
        ep_ret += reward
        ep_len += 1
        for i in np.nonzero(terminated | truncated)[0]:
            returns.append(float(ep_ret[i]))
            lengths.append(int(ep_len[i]))
            ep_ret[i], ep_len[i] = 0.0, 0
    env.close()
    stats = {
        "return_mean": float(np.mean(returns)),
        "return_std": float(np.std(returns)),
        "length_mean": float(np.mean(lengths)),
    }
    logger.info("eval %s: %s", env_id, stats)
    return stats


def normalized_score(ret, random_score, expert_score):
    return 100.0 * (ret - random_score) / (expert_score - random_score)
