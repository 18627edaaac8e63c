"""Episode statistics and greedy-policy evaluation."""
import numpy as np


class EpisodeLog:
    def __init__(self):
        self.reset()

    def reset(self):
        self.returns, self.exits, self.losses = [], [], []

    def add(self, episode, loss):
        self.returns.append(episode["return"])
        self.exits.append(episode["exit"])
        if loss == loss:
            self.losses.append(loss)

    def summary(self):
        n = max(len(self.exits), 1)
        return {"train_return": float(np.mean(self.returns)) if self.returns else 0.0,
                "train_goal": self.exits.count("goal") / n,
                "train_coin": self.exits.count("coin") / n,
                "train_timeout": self.exits.count("timeout") / n,
                "td_loss": float(np.mean(self.losses)) if self.losses else float("nan")}


def evaluate_policy(env, agent, episodes=20):
    """Greedy rollouts; returns mean return, exit rates and the start-state value."""
    returns, exits = [], []
    for _ in range(episodes):
        obs = env.reset()
        v_start = agent.value(obs)
        done, ret = False, 0.0
        while not done:
            obs, r, done, info = env.step(agent.act(obs, 0.0))
            ret += r
        returns.append(ret)
        exits.append(info["episode"]["exit"])
    return {"eval_return": float(np.mean(returns)), "eval_goal": exits.count("goal") / episodes,
            "eval_coin": exits.count("coin") / episodes, "v_start": v_start}
