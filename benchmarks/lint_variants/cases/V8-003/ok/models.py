import torch
import torch.nn as nn
from torch.autograd import Function


class GradReverse(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.alpha, None


def grad_reverse(x, alpha=1.0):
    return GradReverse.apply(x, alpha)


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 64, 5), nn.BatchNorm2d(64), nn.MaxPool2d(2), nn.ReLU(True),
            nn.Conv2d(64, 50, 5), nn.BatchNorm2d(50), nn.Dropout2d(), nn.MaxPool2d(2), nn.ReLU(True),
        )

    def forward(self, x):
        return self.body(x).flatten(1)


class LabelClassifier(nn.Module):
    def __init__(self, in_dim=50 * 4 * 4, n_classes=10):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, 100), nn.BatchNorm1d(100), nn.ReLU(True), nn.Dropout(),
            nn.Linear(100, 100), nn.BatchNorm1d(100), nn.ReLU(True),
            nn.Linear(100, n_classes),
        )

    def forward(self, f):
        return self.net(f)


class DomainClassifier(nn.Module):
    def __init__(self, in_dim=50 * 4 * 4):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, 100), nn.BatchNorm1d(100), nn.ReLU(True),
            nn.Linear(100, 2),
        )

    def forward(self, f, alpha):
        return self.net(grad_reverse(f, alpha))


class DANN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = FeatureExtractor()
        self.classifier = LabelClassifier(n_classes=n_classes)
        self.discriminator = DomainClassifier()

    def forward(self, x, alpha=0.0):
        f = self.features(x)
        return self.classifier(f), self.discriminator(f, alpha)
