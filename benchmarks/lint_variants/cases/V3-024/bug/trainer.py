import numpy as np
import torch
import torch.nn as nn
from transformers import Trainer


class RMSELoss(nn.Module):
    def __init__(self, eps=1e-6):
        super().__init__()
        self.mse = nn.SmoothL1Loss(reduction="mean")
        self.eps = eps

    def forward(self, y_pred, y_true):
        return torch.sqrt(self.mse(y_pred, y_true) + self.eps)


class RegressionTrainer(Trainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.criterion = RMSELoss()

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = self.criterion(outputs["logits"], labels.float())
        return (loss, outputs) if return_outputs else loss


def compute_metrics(eval_pred):
    preds, labels = eval_pred
    colwise_rmse = np.sqrt(((preds - labels) ** 2).mean(axis=0))
    return {"mcrmse": float(colwise_rmse.mean()),
            **{f"rmse_{i}": float(v) for i, v in enumerate(colwise_rmse)}}
