"""Default configuration (config.yaml and command-line overrides are applied on top)."""

DEFAULTS = {
    "seed": 0,
    "data": {
        "data_seed": 2024,        # fixes the dataset itself; `seed` only drives training
        "num_features": 20,
        "num_informative": 8,
        "num_classes": 3,
        "clusters_per_class": 3,
        "cluster_spread": 1.35,
        "label_noise": 0.08,
        "train_size": 400,
        "val_size": 300,
        "batch_size": 32,
    },
    "model": {"hidden": [128, 64], "dropout": 0.2, "activation": "relu"},
    "optim": {"lr": 0.003, "weight_decay": 0.01, "betas": [0.9, 0.999]},
    "train": {"epochs": 40, "grad_clip": 1.0, "log_every": 10, "early_stop_patience": 0},
    "export": {"probe": False, "probe_dim": 16, "path": None},
    "run_dir": None,
    "log_level": "INFO",
}
