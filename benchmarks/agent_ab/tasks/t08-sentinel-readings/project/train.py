"""Train the plant power regressor.

    python train.py                    # uses config.yaml
    python train.py --config other.yaml
"""
from __future__ import annotations

import argparse
import math

import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader

from data import load_splits
from model import PowerRegressor


def load_config(path: str) -> dict:
    with open(path) as fh:
        return yaml.safe_load(fh)


@torch.no_grad()
def evaluate(model: nn.Module, dataset) -> float:
    model.eval()
    x, y = dataset.tensors
    rmse = math.sqrt(nn.functional.mse_loss(model(x), y).item())
    model.train()
    return rmse


def train(cfg: dict, verbose: bool = True):
    tcfg = cfg["train"]
    torch.manual_seed(tcfg["seed"])
    train_set, val_set, (mean, std) = load_splits(cfg["data"]["train_path"], cfg["data"]["holdout_path"])
    model = PowerRegressor(train_set.tensors[0].shape[1], cfg["model"]["hidden"], cfg["model"]["layers"])
    model.set_input_stats(mean, std)
    loader = DataLoader(train_set, batch_size=tcfg["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(tcfg["seed"]))
    optimizer = torch.optim.Adam(model.parameters(), lr=tcfg["lr"])
    loss_fn = nn.MSELoss()
    history = {"step_loss": [], "val_rmse": []}
    step = 0
    for epoch in range(1, tcfg["epochs"] + 1):
        for x, y in loader:
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            if tcfg.get("grad_clip"):
                nn.utils.clip_grad_norm_(model.parameters(), tcfg["grad_clip"])
            optimizer.step()
            step += 1
            history["step_loss"].append(loss.item())
            if verbose and step % tcfg["log_every"] == 0:
                print(f"step {step:5d}  loss {loss.item():.4f}")
        rmse = evaluate(model, val_set)
        history["val_rmse"].append(rmse)
        if verbose:
            print(f"epoch {epoch:2d}  hold-out RMSE {rmse:.3f} kW")
    return model, history


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yaml")
    args = parser.parse_args()
    torch.set_num_threads(1)
    train(load_config(args.config))


if __name__ == "__main__":
    main()
