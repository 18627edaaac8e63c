import torch
import torch.nn.functional as F


class DistillationLoss(torch.nn.Module):
    """Wraps a base criterion and adds a soft distillation term from a frozen teacher."""

    def __init__(self, base_criterion, teacher_model, distillation_type, alpha, tau):
        super().__init__()
        self.base_criterion = base_criterion
        self.teacher_model = teacher_model
        assert distillation_type in ["none", "soft", "hard"]
        self.distillation_type = distillation_type
        self.alpha = alpha
        self.tau = tau

    def forward(self, inputs, outputs, labels):
        base_loss = self.base_criterion(outputs, labels)
        if self.distillation_type == "none":
            return base_loss

        with torch.no_grad():
            teacher_outputs = self.teacher_model(inputs)

        if self.distillation_type == "soft":
            T = self.tau
            distillation_loss = F.kl_div(
                F.log_softmax(outputs / T, dim=1),
                F.log_softmax(teacher_outputs / T, dim=1),
                reduction="sum",
                log_target=True,
            ) * (T * T) / outputs.numel()
        else:
            distillation_loss = F.cross_entropy(outputs, teacher_outputs.argmax(dim=1))

        return base_loss * (1 - self.alpha) + distillation_loss * self.alpha
