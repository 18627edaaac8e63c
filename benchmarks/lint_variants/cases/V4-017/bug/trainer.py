import torch
from transformers import Trainer


class LLRDTrainer(Trainer):
    """Trainer with layer-wise learning-rate decay on the backbone and a separate head lr."""

    def __init__(self, *args, head_lr=1e-3, llrd=0.9, **kwargs):
        super().__init__(*args, **kwargs)
        self.head_lr = head_lr
        self.llrd = llrd

    def create_optimizer(self):
        if self.optimizer is not None:
            return self.optimizer
        model = self.model
        lr = self.args.learning_rate
        wd = self.args.weight_decay
        no_decay = ("bias", "LayerNorm.weight", "LayerNorm.bias")
        groups = []
        layers = [model.backbone.embeddings] + list(model.backbone.encoder.layer)
        for depth, layer in enumerate(reversed(layers)):
            layer_lr = lr * (self.llrd ** depth)
            groups.append({"params": [p for n, p in layer.named_parameters() if not n.endswith(no_decay)],
                           "lr": layer_lr, "weight_decay": wd})
            groups.append({"params": [p for n, p in layer.named_parameters() if n.endswith(no_decay)],
                           "lr": layer_lr, "weight_decay": 0.0})
        groups.append({"params": list(model.head.parameters()), "lr": self.head_lr, "weight_decay": 0.0})
        self.optimizer = torch.optim.AdamW(groups, lr=lr, eps=1e-6, betas=(0.9, 0.999))
        return self.optimizer
