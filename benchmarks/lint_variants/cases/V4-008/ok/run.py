import gymnasium as gym
import numpy as np

from agent import DDPGAgent

CFG = dict(gamma=0.99, tau=0.005, act_noise=0.1, actor_lr=1e-3, critic_lr=1e-3,
           buffer_size=1_000_000, batch_size=256, start_steps=10_000, total_steps=300_000)


class ReplayBuffer:
    def __init__(self, obs_dim, act_dim, size):
        self.obs = np.zeros((size, obs_dim), np.float32)
        self.obs2 = np.zeros((size, obs_dim), np.float32)
        self.act = np.zeros((size, act_dim), np.float32)
        self.rew = np.zeros(size, np.float32)
        self.done = np.zeros(size, np.float32)
        self.ptr, self.size, self.max_size = 0, 0, size

    def store(self, o, a, r, o2, d):
        i = self.ptr
        self.obs[i], self.act[i], self.rew[i], self.obs2[i], self.done[i] = o, a, r, o2, d
        self.ptr = (self.ptr + 1) % self.max_size
        self.size = min(self.size + 1, self.max_size)

    def sample(self, batch_size):
        idx = np.random.randint(0, self.size, size=batch_size)
        return self.obs[idx], self.act[idx], self.rew[idx], self.obs2[idx], self.done[idx]


if __name__ == "__main__":
    env = gym.make("HalfCheetah-v4")
    obs_dim, act_dim = env.observation_space.shape[0], env.action_space.shape[0]
    agent = DDPGAgent(obs_dim, act_dim, float(env.action_space.high[0]), CFG)
    buf = ReplayBuffer(obs_dim, act_dim, CFG["buffer_size"])

    o, _ = env.reset(seed=0)
    ep_ret = 0.0
    for t in range(CFG["total_steps"]):
        a = env.action_space.sample() if t < CFG["start_steps"] else agent.act(o)
        o2, r, term, trunc, _ = env.step(a)
        buf.store(o, a, r, o2, float(term))
        o, ep_ret = o2, ep_ret + r
        if term or trunc:
            print(f"t={t} return={ep_ret:.1f}")
            o, _ = env.reset()
            ep_ret = 0.0
        if t >= CFG["start_steps"]:
            info = agent.update(buf.sample(CFG["batch_size"]))
