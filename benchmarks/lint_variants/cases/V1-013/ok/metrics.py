import torch


class Accuracy:
    def reset(self):
        self.correct = 0
        self.total = 0

    def update(self, output):
        y_pred, y = output
        self.correct += (y_pred.argmax(dim=1) == y).sum().item()
        self.total += y.numel()

    def compute(self):
        return self.correct / max(self.total, 1)


class Loss:
    def __init__(self, loss_fn):
        self.loss_fn = loss_fn

    def reset(self):
        self.sum = 0.0
        self.n = 0

    def update(self, output):
        y_pred, y = output
        self.sum += self.loss_fn(y_pred, y).item() * y.size(0)
        self.n += y.size(0)

    def compute(self):
        return self.sum / max(self.n, 1)
