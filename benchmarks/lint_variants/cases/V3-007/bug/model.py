import torch.nn as nn


def define_model(trial, in_features):
    n_layers = trial.suggest_int("n_layers", 1, 4)
    layers = []
    for i in range(n_layers):
        out_features = trial.suggest_int(f"n_units_l{i}", 32, 512, log=True)
        p = trial.suggest_float(f"dropout_l{i}", 0.0, 0.5)
        layers += [nn.Linear(in_features, out_features), nn.BatchNorm1d(out_features),
                   nn.ReLU(), nn.Dropout(p)]
        in_features = out_features
    layers += [nn.Linear(in_features, 1), nn.Sigmoid()]
    return nn.Sequential(*layers)
