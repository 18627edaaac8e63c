import os

import torch
import torch.nn as nn
from ray import tune
from ray.air import session
from ray.tune.schedulers import ASHAScheduler
from torch.utils.data import DataLoader

from data import load_splits
from model import LSTMForecaster

DATA = os.path.abspath("data/ETTh1.csv")


def train_forecaster(config):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_ds, val_ds, n_feat = load_splits(DATA, window=config["window"])
    train_dl = DataLoader(train_ds, batch_size=config["batch_size"], shuffle=True, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=256)

    model = LSTMForecaster(n_feat, config["hidden"], config["layers"], dropout=config["dropout"]).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    mse = nn.MSELoss()

    for epoch in range(config["epochs"]):
        model.train()
        for x, y in train_dl:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            loss = mse(model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

        model.eval()
        se, n = 0.0, 0
        with torch.no_grad():
            for x, y in val_dl:
                pred = model(x.to(device))
                se += ((pred - y.to(device)) ** 2).sum().item()
                n += y.numel()
        session.report({"val_mse": se / n, "epoch": epoch})


if __name__ == "__main__":
    search_space = {
        "hidden": tune.choice([32, 64, 128]),
        "layers": tune.choice([1, 2, 3]),
        "dropout": tune.uniform(0.0, 0.3),
        "lr": tune.loguniform(1e-4, 1e-2),
        "batch_size": tune.choice([32, 64, 128]),
        "window": tune.choice([96, 168, 336]),
        "epochs": 30,
    }
    tuner = tune.Tuner(
        tune.with_resources(train_forecaster, {"cpu": 2, "gpu": 0.25}),
        param_space=search_space,
        tune_config=tune.TuneConfig(metric="val_mse", mode="min", num_samples=40,
                                    scheduler=ASHAScheduler(max_t=30, grace_period=5)),
    )
    results = tuner.fit()
    print(results.get_best_result().config)
