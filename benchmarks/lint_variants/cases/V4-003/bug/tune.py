import optuna
import torch
import torch.nn as nn

from data import load_frame, make_folds

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def build_mlp(n_in, n_out, n_layers, hidden, dropout):
    layers, d = [], n_in
    for _ in range(n_layers):
        layers += [nn.Linear(d, hidden), nn.BatchNorm1d(hidden), nn.SiLU(), nn.Dropout(dropout)]
        d = hidden
    layers.append(nn.Linear(d, n_out))
    return nn.Sequential(*layers)


def run_fold(params, train_dl, valid_dl, n_in, n_out, epochs):
    model = build_mlp(n_in, n_out, params["n_layers"], params["hidden"], params["dropout"]).to(DEVICE)
    opt = torch.optim.Adam(model.parameters(), lr=params["lr"], weight_decay=params["wd"])
    crit = nn.CrossEntropyLoss()
    best = float("inf")
    for epoch in range(epochs):
        model.train()
        train_loss = 0.0
        for xb, yb in train_dl:
            xb, yb = xb.to(DEVICE), yb.to(DEVICE)
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            train_loss += loss
        train_loss = train_loss / len(train_dl)

        model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for xb, yb in valid_dl:
                xb, yb = xb.to(DEVICE), yb.to(DEVICE)
                val_loss += crit(model(xb), yb).item() * len(yb)
        val_loss /= len(valid_dl.dataset)
        best = min(best, val_loss)
        print(f"  epoch {epoch:02d} train {float(train_loss):.4f} valid {val_loss:.4f}")
    return best


def objective(trial, X, y, epochs=30):
    params = {
        "n_layers": trial.suggest_int("n_layers", 1, 4),
        "hidden": trial.suggest_categorical("hidden", [128, 256, 512]),
        "dropout": trial.suggest_float("dropout", 0.0, 0.5),
        "lr": trial.suggest_float("lr", 1e-4, 3e-3, log=True),
        "wd": trial.suggest_float("wd", 1e-6, 1e-3, log=True),
    }
    scores = []
    n_out = int(y.max()) + 1
    for fold, train_dl, valid_dl in make_folds(X, y):
        score = run_fold(params, train_dl, valid_dl, X.shape[1], n_out, epochs)
        scores.append(score)
        trial.report(sum(scores) / len(scores), fold)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return sum(scores) / len(scores)


if __name__ == "__main__":
    X, y = load_frame("train.csv")
    study = optuna.create_study(direction="minimize", pruner=optuna.pruners.MedianPruner())
    study.optimize(lambda t: objective(t, X, y), n_trials=50)
    print("best", study.best_value, study.best_params)
