"""Evaluation helpers: accuracy and confusion matrix."""
from __future__ import annotations

import torch


@torch.no_grad()
def predict(model, dataset, batch_size: int = 1024) -> torch.Tensor:
    was_training = model.training
    model.eval()
    x = dataset.tensors[0]
    preds = torch.cat([model(x[i:i + batch_size]).argmax(dim=1) for i in range(0, len(x), batch_size)])
    model.train(was_training)
    return preds


def accuracy(model, dataset) -> float:
    return (predict(model, dataset) == dataset.tensors[1]).float().mean().item()


def confusion_matrix(model, dataset, n_classes: int) -> torch.Tensor:
    preds = predict(model, dataset)
    cm = torch.zeros(n_classes, n_classes, dtype=torch.long)
    for t, p in zip(dataset.tensors[1].tolist(), preds.tolist()):
        cm[t, p] += 1
    return cm
