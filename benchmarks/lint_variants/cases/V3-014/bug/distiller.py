import torch
import torch.nn as nn
import torch.nn.functional as F


class Distiller:
    def __init__(self, student, teacher, optimizer, cfg, device="cuda"):
        self.student = student.to(device)
        self.teacher = teacher.to(device)
        self.optimizer = optimizer
        self.cfg = cfg
        self.device = device
        self.ce = nn.CrossEntropyLoss()
        for p in self.teacher.parameters():
            p.requires_grad_(False)

    def kd_loss(self, s_logits, t_logits):
        T = self.cfg.temperature
        return F.kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1),
                        reduction="batchmean") * T * T

    def train_epoch(self, loader):
        self.student.train()
        self.teacher.eval()
        running = 0.0
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            with torch.no_grad():
                t_logits = self.teacher(images)
            s_logits = self.student(images)
            loss = (1 - self.cfg.alpha) * self.ce(s_logits, labels) + \
                self.cfg.alpha * self.kd_loss(s_logits, t_logits)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            running += loss.item() * images.size(0)
        return running / len(loader.dataset)

    @torch.no_grad()
    def validate(self, loader):
        self.teacher.eval()
        correct = 0
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            correct += (self.student(images).argmax(1) == labels).sum().item()
        return correct / len(loader.dataset)
