"""Train DQN on the two-exit gridworld.

    python train.py --config config.yaml [key.sub=value ...]
"""
import argparse
import time

import torch

from agent import build_agent
from config import load_config
from env import make_env
from runner import Runner
from utils import get_logger, seed_everything


def run(cfg, verbose=True):
    logger = get_logger("dqn", cfg.get("log_level", "INFO")) if verbose else None
    seed = int(cfg["seed"])
    seed_everything(seed)
    env = make_env(cfg, seed=seed)
    eval_env = make_env(cfg, seed=seed + 10_000, train=False)
    agent = build_agent(cfg, env.n_states, env.n_actions)
    runner = Runner(env, eval_env, agent, cfg, logger)
    history = runner.train()
    return agent, env, history


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()
    cfg = load_config(args.config, args.overrides)
    torch.set_num_threads(1)
    t0 = time.time()
    _, _, history = run(cfg)
    last = history[-1]
    print(f"final: eval return {last['eval_return']:.2f}  goal {last['eval_goal']:.0%}  "
          f"coin {last['eval_coin']:.0%}  V(start) {last['v_start']:.2f}  ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
