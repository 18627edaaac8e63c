"""Experience collection and the training loop."""
import numpy as np

from metrics import EpisodeLog, evaluate_policy
from replay import ReplayBuffer


def linear_epsilon(step, start, end, decay_steps):
    frac = min(step / max(decay_steps, 1), 1.0)
    return start + frac * (end - start)


class Runner:
    def __init__(self, env, eval_env, agent, cfg, logger=None):
        self.env, self.eval_env, self.agent, self.cfg = env, eval_env, agent, cfg
        t = cfg["train"]
        self.buffer = ReplayBuffer(t["buffer_size"], env.n_states, seed=int(cfg["seed"]))
        self.logger = logger
        self.steps = 0
        self.log = EpisodeLog()

    def epsilon(self):
        x = self.cfg["explore"]
        return linear_epsilon(self.steps, x["eps_start"], x["eps_end"], x["eps_decay_steps"])

    def run_episode(self):
        t = self.cfg["train"]
        obs = self.env.reset()
        losses = []
        while True:
            action = self.agent.act(obs, self.epsilon())
            next_obs, reward, done, info = self.env.step(action)
            # a time-limit cut is not a terminal state: keep bootstrapping from next_obs
            terminal = done and not info.get("TimeLimit.truncated", False)
            self.buffer.push(obs, action, reward, next_obs, terminal)
            obs = next_obs
            self.steps += 1
            if len(self.buffer) >= t["warmup_steps"]:
                for _ in range(t.get("updates_per_step", 1)):
                    losses.append(self.agent.update(self.buffer.sample(self.cfg["agent"]["batch_size"])))
            if self.steps % self.agent.target_sync == 0:
                self.agent.sync_target()
            if done:
                return info["episode"], (float(np.mean(losses)) if losses else float("nan"))

    def train(self):
        t = self.cfg["train"]
        history = []
        for ep in range(1, t["episodes"] + 1):
            episode, loss = self.run_episode()
            self.log.add(episode, loss)
            if t["eval_every"] and ep % t["eval_every"] == 0:
                ev = evaluate_policy(self.eval_env, self.agent, t["eval_episodes"])
                rec = dict(episode=ep, steps=self.steps, epsilon=self.epsilon(), **self.log.summary(), **ev)
                history.append(rec)
                if self.logger:
                    self.logger.info(
                        "ep %4d  eps %.2f  train return %.2f  goal %.0f%% coin %.0f%% timeout %.0f%%  "
                        "| eval return %.2f  V(start) %.2f  td loss %.4f",
                        ep, rec["epsilon"], rec["train_return"], 100 * rec["train_goal"],
                        100 * rec["train_coin"], 100 * rec["train_timeout"], rec["eval_return"],
                        rec["v_start"], rec["td_loss"])
                self.log.reset()
        return history
