import torch.nn as nn


def conv_bn(ci, co, stride=1):
    return nn.Sequential(nn.Conv2d(ci, co, 3, stride, 1, bias=False), nn.BatchNorm2d(co), nn.ReLU(inplace=True))


class AudioCNN(nn.Module):
    """Log-mel spectrogram classifier; returns class probabilities."""

    def __init__(self, n_classes=50, width=64):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(1, width), conv_bn(width, width), nn.MaxPool2d(2),
            conv_bn(width, 2 * width), conv_bn(2 * width, 2 * width), nn.MaxPool2d(2),
            conv_bn(2 * width, 4 * width), conv_bn(4 * width, 4 * width),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.head = nn.Sequential(nn.Dropout(0.3), nn.Linear(4 * width, n_classes), nn.Softmax(dim=-1))

    def forward(self, x):
        return self.head(self.features(x))
