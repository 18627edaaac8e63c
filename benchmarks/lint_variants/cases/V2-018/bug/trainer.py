import torch
import torch.nn.functional as F
from transformers import Trainer


class TaggingTrainer(Trainer):
    def __init__(self, *args, class_weights=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs["logits"]
        weight = self.class_weights.to(logits.device) if self.class_weights is not None else None
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                               weight=weight, ignore_index=-100)
        return (loss, outputs) if return_outputs else loss

    def prediction_step(self, model, inputs, prediction_loss_only, ignore_keys=None):
        labels = inputs.get("labels")
        with torch.no_grad():
            loss, outputs = self.compute_loss(model, dict(inputs), return_outputs=True)
        if prediction_loss_only:
            return loss.detach(), None, None
        return loss.detach(), outputs["logits"].detach(), labels
