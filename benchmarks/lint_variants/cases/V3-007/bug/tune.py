import optuna
import torch
import torch.nn as nn
from sklearn.metrics import average_precision_score

from data import load_fraud, make_loaders
from model import define_model

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
EPOCHS = 15
TRAIN, VAL = load_fraud()


def objective(trial):
    model = define_model(trial, TRAIN[0].shape[1]).to(DEVICE)
    lr = trial.suggest_float("lr", 1e-5, 1e-2, log=True)
    batch_size = trial.suggest_categorical("batch_size", [256, 512, 1024])
    optimizer_name = trial.suggest_categorical("optimizer", ["Adam", "RMSprop"])
    optimizer = getattr(torch.optim, optimizer_name)(model.parameters(), lr=lr)
    pos_weight = torch.tensor([(TRAIN[1] == 0).sum() / max((TRAIN[1] == 1).sum(), 1)],
                              device=DEVICE)
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    train_loader, val_loader = make_loaders(TRAIN, VAL, batch_size)

    for epoch in range(EPOCHS):
        model.train()
        for xb, yb in train_loader:
            xb, yb = xb.to(DEVICE), yb.to(DEVICE)
            optimizer.zero_grad()
            loss = criterion(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()

        model.eval()
        scores, labels = [], []
        with torch.no_grad():
            for xb, yb in val_loader:
                scores.append(model(xb.to(DEVICE)).squeeze(1).cpu())
                labels.append(yb)
        ap = average_precision_score(torch.cat(labels).numpy(), torch.cat(scores).numpy())
        trial.report(ap, epoch)
        if trial.should_prune():
            raise optuna.exceptions.TrialPruned()
    return ap


if __name__ == "__main__":
    study = optuna.create_study(direction="maximize", pruner=optuna.pruners.MedianPruner())
    study.optimize(objective, n_trials=100, timeout=3600)
    print("Best trial:", study.best_trial.value)
    for key, value in study.best_trial.params.items():
        print(f"    {key}: {value}")
