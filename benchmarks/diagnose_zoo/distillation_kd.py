"""pytorch/tutorials knowledge_distillation_tutorial (Hinton et al. 2015): a frozen, pre-trained DeepNN teacher (conv-ReLU x4 with two max-pools, Linear-ReLU-Dropout(0.1)-Linear) in eval mode under no_grad, a LightNN student, loss 0.25 * T^2-scaled KL(softmax(t/T) || softmax(s/T)) summed over classes / batch + 0.75 * CE(s, y) with T=2, Adam lr 1e-3 on the student only."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 8
IMAGE_SIZE = 16
BATCH = 64
T = 2.0
SOFT_TARGET_LOSS_WEIGHT = 0.25
CE_LOSS_WEIGHT = 0.75
TASK_SEED = 1503_02531  # fixes the class templates; the sample seed only draws the samples
TEACHER_SET = 512
TEACHER_EPOCHS = 10


class DeepNN(nn.Module):
    """The tutorial's teacher with 1/4 of its channels."""

    def __init__(self, num_classes: int = NUM_CLASSES):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(32, 16, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(16, 16, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 8, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(8 * 4 * 4, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


class LightNN(nn.Module):
    """The tutorial's student with 1/4 of its channels."""

    def __init__(self, num_classes: int = NUM_CLASSES):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(4, 4, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(4 * 4 * 4, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


class Distiller(nn.Module):
    """Student plus frozen teacher; forward(x) -> (student_logits, teacher_logits)."""

    def __init__(self, teacher: nn.Module, student: nn.Module):
        super().__init__()
        self.teacher = teacher
        self.student = student
        self.teacher.requires_grad_(False)
        self.teacher.eval()

    def train(self, mode: bool = True):
        super().train(mode)
        self.teacher.eval()  # teacher.eval() in the tutorial: its dropout stays off while the student trains
        return self

    def forward(self, x: torch.Tensor):
        with torch.no_grad():
            teacher_logits = self.teacher(x)
        student_logits = self.student(x)
        return student_logits, teacher_logits


def _templates() -> torch.Tensor:
    gen = torch.Generator().manual_seed(TASK_SEED)
    coarse = torch.randn(NUM_CLASSES, 3, 4, 4, generator=gen)
    return F.interpolate(coarse, size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)


def make_batch(seed: int, count: int = BATCH):
    """Noisy, shifted, rescaled copies of one smooth colour template per class."""
    gen = torch.Generator().manual_seed(seed)
    templates = _templates()
    labels = (torch.arange(count) % NUM_CLASSES)[torch.randperm(count, generator=gen)]
    images = []
    for c in labels.tolist():
        dx, dy = torch.randint(-3, 4, (2,), generator=gen).tolist()
        img = torch.roll(templates[c], shifts=(dy, dx), dims=(1, 2))
        img = img * (0.6 + 0.8 * torch.rand(1, generator=gen)) + 1.0 * torch.randn(img.shape, generator=gen)
        images.append(img)
    return torch.stack(images), labels


def pretrained_teacher(seed: int) -> DeepNN:
    """The tutorial's train(): CE, Adam lr 1e-3, minibatches of 64, on a separate training set."""
    teacher = DeepNN()
    x, y = make_batch(10_000 + seed, TEACHER_SET)
    opt = torch.optim.Adam(teacher.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(seed)
    teacher.train()
    for _ in range(TEACHER_EPOCHS):
        for idx in torch.randperm(TEACHER_SET, generator=gen).split(64):
            opt.zero_grad()
            F.cross_entropy(teacher(x[idx]), y[idx]).backward()
            opt.step()
    return teacher.eval()


def distillation_loss(outputs, labels: torch.Tensor) -> torch.Tensor:
    student_logits, teacher_logits = outputs
    soft_targets = F.softmax(teacher_logits / T, dim=-1)
    soft_prob = F.log_softmax(student_logits / T, dim=-1)
    # KL(p_teacher || p_student) summed over classes, averaged over the batch, scaled by T**2 (Hinton et al.)
    soft_targets_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T ** 2)
    label_loss = F.cross_entropy(student_logits, labels)
    return SOFT_TARGET_LOSS_WEIGHT * soft_targets_loss + CE_LOSS_WEIGHT * label_loss


def make_optimizer(params) -> torch.optim.Optimizer:
    # optim.Adam(student.parameters(), lr=learning_rate): the frozen teacher is not optimised
    return torch.optim.Adam([p for p in params if p.requires_grad], lr=1e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    batch = make_batch(seed)
    torch.manual_seed(seed)
    teacher = pretrained_teacher(seed)
    student = LightNN()
    spec = {
        "model": Distiller(teacher, student),
        "batch": batch,
        "loss_fn": distillation_loss,
        "task": "classification",
        "num_classes": NUM_CLASSES,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
