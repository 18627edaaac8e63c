import torch
import torch.nn as nn
from torch.autograd import Function


class GradientReversalFn(Function):
    @staticmethod
    def forward(ctx, x, lambda_):
        ctx.lambda_ = lambda_
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambda_, None


class GradientReversal(nn.Module):
    def __init__(self, lambda_=1.0):
        super().__init__()
        self.lambda_ = lambda_

    def forward(self, x):
        return GradientReversalFn.apply(x, self.lambda_)


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=5), nn.BatchNorm2d(64), nn.MaxPool2d(2), nn.ReLU(True),
            nn.Conv2d(64, 50, kernel_size=5), nn.BatchNorm2d(50), nn.Dropout2d(), nn.MaxPool2d(2), nn.ReLU(True),
        )

    def forward(self, x):
        x = x.expand(x.size(0), 3, 28, 28)
        return self.net(x).view(-1, 50 * 4 * 4)


class LabelClassifier(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(50 * 4 * 4, 100), nn.BatchNorm1d(100), nn.ReLU(True), nn.Dropout(),
            nn.Linear(100, 100), nn.BatchNorm1d(100), nn.ReLU(True),
            nn.Linear(100, num_classes),
        )

    def forward(self, feats):
        return self.net(feats)


class DomainClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.grl = GradientReversal()
        self.net = nn.Sequential(
            nn.Linear(50 * 4 * 4, 100), nn.BatchNorm1d(100), nn.ReLU(True),
            nn.Linear(100, 1),
        )

    def set_lambda(self, lambda_):
        self.grl.lambda_ = lambda_

    def forward(self, feats):
        return self.net(self.grl(feats)).view(-1)
