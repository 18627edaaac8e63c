import argparse
import os

import gym
import numpy as np
import torch

from ddpg import DDPG, ReplayBuffer

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="HalfCheetah-v2")
    parser.add_argument("--seed", default=0, type=int)
    parser.add_argument("--start_timesteps", default=25e3, type=int)
    parser.add_argument("--max_timesteps", default=1e6, type=int)
    parser.add_argument("--expl_noise", default=0.1, type=float)
    parser.add_argument("--batch_size", default=256, type=int)
    args = parser.parse_args()

    env = gym.make(args.env)
    env.seed(args.seed)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    state_dim = env.observation_space.shape[0]
    action_dim = env.action_space.shape[0]
    max_action = float(env.action_space.high[0])

    policy = DDPG(state_dim, action_dim, max_action)
    replay_buffer = ReplayBuffer(state_dim, action_dim)
    os.makedirs("./models", exist_ok=True)

    state, done = env.reset(), False
    episode_reward, episode_num = 0, 0
    for t in range(int(args.max_timesteps)):
        if t < args.start_timesteps:
            action = env.action_space.sample()
        else:
            noise = np.random.normal(0, max_action * args.expl_noise, size=action_dim)
            action = (policy.select_action(np.array(state)) + noise).clip(-max_action, max_action)
        next_state, reward, done, _ = env.step(action)
        replay_buffer.add(state, action, next_state, reward, float(done))
        state = next_state
        episode_reward += reward
        if t >= args.start_timesteps:
            policy.train(replay_buffer, args.batch_size)
        if done:
            print(f"T: {t + 1} Episode: {episode_num + 1} Reward: {episode_reward:.3f}")
            state, done = env.reset(), False
            episode_reward = 0
            episode_num += 1
    policy.save(f"./models/DDPG_{args.env}_{args.seed}")
