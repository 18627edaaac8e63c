import argparse

import d4rl  # noqa: F401
import gym
import torch
import torch.nn.functional as F

from policy import MLPPolicy
from utils import ReplayBuffer, evaluate_policy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="halfcheetah-medium-expert-v2")
    parser.add_argument("--max_timesteps", type=int, default=1_000_000)
    parser.add_argument("--eval_freq", type=int, default=5000)
    parser.add_argument("--batch_size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    env = gym.make(args.env)
    buffer = ReplayBuffer(d4rl.qlearning_dataset(env), device)
    obs_dim, act_dim = env.observation_space.shape[0], env.action_space.shape[0]
    policy = MLPPolicy(obs_dim, act_dim, max_action=float(env.action_space.high[0])).to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.max_timesteps)
    policy.train()
    for t in range(1, args.max_timesteps + 1):
        obs, actions = buffer.sample(args.batch_size)
        loss = F.mse_loss(policy(obs), actions)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if t % args.eval_freq != 0:
            continue
        metrics = evaluate_policy(policy, env, device, seed=args.seed + 100)
        metrics["normalized_score"] = env.get_normalized_score(metrics["return_mean"]) * 100
        print(f"Time steps: {t}, bc_loss {loss.item():.4f}")
        for k, v in metrics.items():
            print(f"  {k}: {v:.3f}")
        policy.train()
        torch.save(policy.state_dict(), f"checkpoints/bc_{args.env}_{t}.pt")


if __name__ == "__main__":
    main()
