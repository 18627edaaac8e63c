import torch
import torch.nn as nn
from transformers import Trainer


class WeightedBCETrainer(Trainer):
    def __init__(self, *args, pos_weight=1.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.pos_weight = torch.tensor([pos_weight])

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.get("logits").squeeze(-1)
        loss_fct = nn.BCEWithLogitsLoss(pos_weight=self.pos_weight.to(logits.device))
        loss = loss_fct(logits, labels.float())
        return (loss, outputs) if return_outputs else loss


def compute_metrics(eval_pred):
    import numpy as np
    from sklearn.metrics import f1_score, roc_auc_score
    logits, labels = eval_pred
    logits = logits.reshape(-1)
    preds = (logits > 0).astype(np.int64)
    return {"f1": f1_score(labels, preds), "auc": roc_auc_score(labels, logits)}
