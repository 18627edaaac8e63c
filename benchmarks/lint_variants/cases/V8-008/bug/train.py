import argparse
import logging
import os
import time

import gymnasium as gym
import numpy as np
import torch

from ppo import PPO, ActorCritic
from storage import RolloutStorage

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("ppo")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--env-id", default="CartPole-v1")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--num-steps", type=int, default=128)
    p.add_argument("--total-timesteps", type=int, default=500_000)
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--anneal-lr", action="store_true")
    p.add_argument("--save-dir", default="checkpoints")
    return p.parse_args()


def make_env(env_id, idx, seed):
    def thunk():
        env = gym.make(env_id)
        env = gym.wrappers.RecordEpisodeStatistics(env)
        env.action_space.seed(seed + idx)
        return env
    return thunk


def main():
    args = parse_args()
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    envs = gym.vector.SyncVectorEnv([make_env(args.env_id, i, args.seed) for i in range(args.num_envs)])
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    agent = ActorCritic(obs_dim, envs.single_action_space.n).to(device)
    ppo = PPO(agent, lr=args.lr)
    storage = RolloutStorage(args.num_steps, args.num_envs, envs.single_observation_space.shape, (), device)

    next_obs, _ = envs.reset(seed=args.seed)
    next_obs = torch.tensor(next_obs, dtype=torch.float32, device=device)
    next_done = torch.zeros(args.num_envs, device=device)
    num_updates = args.total_timesteps // (args.num_envs * args.num_steps)
    global_step, start = 0, time.time()
    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            ppo.optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * args.lr
        for _ in range(args.num_steps):
            global_step += args.num_envs
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
            obs, reward, term, trunc, infos = envs.step(action.cpu().numpy())
            storage.insert(next_obs, action, logprob, torch.tensor(reward, device=device), next_done, value)
            next_obs = torch.tensor(obs, dtype=torch.float32, device=device)
            next_done = torch.tensor(np.logical_or(term, trunc), dtype=torch.float32, device=device)
            if "episode" in infos:
                done_mask = infos["_episode"]
                for r in infos["episode"]["r"][done_mask]:
                    log.info("step %d episodic_return %.1f", global_step, float(r))
        with torch.no_grad():
            storage.compute_gae(agent.get_value(next_obs), next_done)
        stats = ppo.update(storage)
        log.info("update %d/%d sps %d %s", update, num_updates, int(global_step / (time.time() - start)),
                 {k: round(v, 4) for k, v in stats.items()})
    os.makedirs(args.save_dir, exist_ok=True)
    torch.save(agent.state_dict(), os.path.join(args.save_dir, f"ppo_{args.env_id}.pt"))
    envs.close()


if __name__ == "__main__":
    main()
