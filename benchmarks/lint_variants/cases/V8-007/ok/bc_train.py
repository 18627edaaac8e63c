import argparse
import json
import logging
import os
from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from policies import ObsNormalizer, build_policy
from rollout import evaluate_policy, normalized_score

logging.basicConfig(level=logging.INFO, format="%(asctime)s | %(message)s")
log = logging.getLogger("bc")


@dataclass
class BCConfig:
    env_id: str = "HalfCheetah-v4"
    demos: str = "demos/halfcheetah_expert.npz"
    policy: str = "mlp"
    hidden: int = 256
    epochs: int = 100
    batch_size: int = 256
    lr: float = 3e-4
    eval_every: int = 10
    random_score: float = -280.0
    expert_score: float = 12135.0
    out_dir: str = "runs/bc"


def load_demos(path):
    data = np.load(path)
    obs, act = data["observations"].astype(np.float32), data["actions"].astype(np.float32)
    return obs, act


def main():
    ap = argparse.ArgumentParser()
    for k, v in asdict(BCConfig()).items():
        ap.add_argument(f"--{k.replace('_', '-')}", type=type(v), default=v)
    cfg = BCConfig(**vars(ap.parse_args()))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    os.makedirs(cfg.out_dir, exist_ok=True)

    obs, act = load_demos(cfg.demos)
    normalizer = ObsNormalizer(obs.mean(0), obs.std(0)).to(device)
    loader = DataLoader(TensorDataset(torch.from_numpy(obs), torch.from_numpy(act)),
                        batch_size=cfg.batch_size, shuffle=True, drop_last=True)
    policy = build_policy(cfg.policy, obs.shape[1], act.shape[1], hidden=(cfg.hidden, cfg.hidden)).to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.lr)

    results = []
    for epoch in range(1, cfg.epochs + 1):
        policy.train()
        running = 0.0
        for o, a in loader:
            o, a = normalizer(o.to(device)), a.to(device)
            loss = F.mse_loss(policy(o), a)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        log.info("epoch %d bc_loss %.5f", epoch, running / len(loader))
        if epoch % cfg.eval_every == 0:
            stats = evaluate_policy(policy, normalizer, cfg.env_id, device=device)
            stats["normalized"] = normalized_score(stats["return_mean"], cfg.random_score, cfg.expert_score)
            stats["epoch"] = epoch
            results.append(stats)
            torch.save({"policy": policy.state_dict(), "normalizer": normalizer.state_dict()},
                       os.path.join(cfg.out_dir, f"policy_{epoch}.pt"))
    with open(os.path.join(cfg.out_dir, "eval.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
