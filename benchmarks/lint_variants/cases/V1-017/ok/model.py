import torch.nn as nn


class ConvBNReLU(nn.Sequential):
    def __init__(self, in_ch, out_ch, pool=2):
        super().__init__(
            nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(pool),
        )


class AudioCNN(nn.Module):
    """Small CNN on log-mel spectrograms (B, 1, n_mels, frames)."""

    def __init__(self, n_classes=50, base=32, dropout=0.3):
        super().__init__()
        self.features = nn.Sequential(
            ConvBNReLU(1, base), ConvBNReLU(base, base * 2),
            ConvBNReLU(base * 2, base * 4), ConvBNReLU(base * 4, base * 8),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(dropout), nn.Linear(base * 8, n_classes))

    def forward(self, x):
        return self.classifier(self.pool(self.features(x)).flatten(1))
