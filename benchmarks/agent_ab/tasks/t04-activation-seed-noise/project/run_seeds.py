"""Train one model per seed in the config and summarise.

    python run_seeds.py --config config.yaml
"""
import argparse
import statistics

from train import train
from utils import load_config


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    cfg = load_config(args.config)
    accs = []
    for seed in cfg["seeds"]:
        _, m = train(cfg, seed)
        accs.append(m["acc"])
        print(f"seed {seed}: val acc {m['acc']:.4f}")
    sd = statistics.stdev(accs) if len(accs) > 1 else 0.0
    print(f"val acc over {len(accs)} seeds: mean {statistics.mean(accs):.4f}  std {sd:.4f}  "
          f"min {min(accs):.4f}  max {max(accs):.4f}")


if __name__ == "__main__":
    main()
