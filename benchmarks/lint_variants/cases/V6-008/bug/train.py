import argparse

import gym
import numpy as np

from agent import A2CAgent


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--n-steps", type=int, default=5)
    parser.add_argument("--total-steps", type=int, default=200000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = gym.make(args.env)
    obs, _ = env.reset(seed=args.seed)
    agent = A2CAgent(env.observation_space.shape[0], env.action_space.n)
    ep_ret, ep_rets = 0.0, []
    step = 0
    while step < args.total_steps:
        buf_obs, buf_act, buf_rew, buf_done = [], [], [], []
        for _ in range(args.n_steps):
            action = agent.act(obs)
            next_obs, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            buf_obs.append(obs)
            buf_act.append(action)
            buf_rew.append(reward)
            buf_done.append(float(done))
            ep_ret += reward
            obs = next_obs
            step += 1
            if done:
                ep_rets.append(ep_ret)
                ep_ret = 0.0
                obs, _ = env.reset()
        a_loss, c_loss = agent.update(np.array(buf_obs), buf_act, buf_rew, buf_done, obs)
        if step % 5000 < args.n_steps and ep_rets:
            print(f"step {step} | return {np.mean(ep_rets[-20:]):.1f} | actor {a_loss:.3f} critic {c_loss:.3f}")


if __name__ == "__main__":
    main()
