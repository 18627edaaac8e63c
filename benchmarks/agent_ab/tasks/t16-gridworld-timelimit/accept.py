"""Acceptance test for t16: python accept.py PROJECT_DIR

Trains the project's DQN with this file's copy of the shipped configuration
(5-step training episodes with exploring starts, gamma 0.9) for seeds 0 and 1.
The time limit only resets training episodes; the task is the undiscounted-
horizon corridor, whose optimal start value V*(S) = 1.5815 (value iteration
below, independent of the project). For each seed:
1. the learned value of the start state must be within 15% of V*(S);
2. greedy evaluation from S (50-step cap, 40 episodes) must take the goal exit
   in >= 95% of episodes.
Config edits (longer training episodes, gamma, exploration) are not seen.
"""
import copy
import os
import sys

import numpy as np
import torch

torch.set_num_threads(1)

CFG = {
    "seed": 0,
    "env": {"layout": "corridor", "max_steps": 5, "eval_max_steps": 50, "random_start": True,
            "slip": 0.2, "coin_reward": 1.0, "goal_reward": 4.0, "step_penalty": 0.0},
    "agent": {"hidden": 64, "gamma": 0.9, "lr": 1e-3, "batch_size": 64, "target_sync": 200,
              "double_q": False},
    "explore": {"eps_start": 1.0, "eps_end": 0.1, "eps_decay_steps": 3000},
    "train": {"episodes": 1200, "buffer_size": 20000, "warmup_steps": 500, "updates_per_step": 1,
              "eval_every": 200, "eval_episodes": 20},
    "log_level": "WARNING",
}


def optimal_start_value(gamma=0.9, slip=0.2, coin_r=1.0, goal_r=4.0, n=11, start=2):
    """Corridor C . S . . . . . . . G: coin at 0, goal at n-1; slip -> uniform over 4 moves
    (up/down hit the walls and stay)."""
    v = np.zeros(n)
    for _ in range(500):
        new = np.zeros(n)
        for s in range(1, n - 1):
            qs = []
            for a in range(4):
                tot = 0.0
                for a2, p in [(a, 1 - slip)] + [(b, slip / 4) for b in range(4)]:
                    s2 = s + {0: 0, 1: 1, 2: 0, 3: -1}[a2]
                    r = coin_r if s2 == 0 else goal_r if s2 == n - 1 else 0.0
                    tot += p * (r + (0.0 if s2 in (0, n - 1) else gamma * v[s2]))
                qs.append(tot)
            new[s] = max(qs)
        v = new
    return v[start]


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    from env import make_env
    from metrics import evaluate_policy
    from train import run

    v_star = optimal_start_value()
    ok = True
    for seed in (0, 1):
        cfg = copy.deepcopy(CFG)
        cfg["seed"] = seed
        agent, _, _ = run(cfg, verbose=False)
        eval_env = make_env(cfg, seed=seed + 20_000, train=False)
        ev = evaluate_policy(eval_env, agent, 40)
        v = ev["v_start"]
        good_v = abs(v - v_star) <= 0.15 * v_star
        good_p = ev["eval_goal"] >= 0.95
        print(f"seed {seed}: V(start) {v:.3f} (V* {v_star:.3f}) {'ok' if good_v else 'BIASED'}; "
              f"greedy goal rate {ev['eval_goal']:.2f} {'ok' if good_p else 'LOW'}")
        ok &= good_v and good_p
    if not ok:
        print("FAIL: start-state value not within 15% of V* or the greedy policy does not take the goal exit")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
