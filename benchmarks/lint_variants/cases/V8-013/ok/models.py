import torch.nn as nn


class CifarCNN(nn.Module):
    def __init__(self, num_classes=10, dropout=0.25):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(dropout),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(dropout),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(64 * 8 * 8, 512), nn.ReLU(), nn.Dropout(0.5), nn.Linear(512, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


class MnistMLP(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, 200), nn.ReLU(), nn.Dropout(0.2),
                                 nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, num_classes))

    def forward(self, x):
        return self.net(x)


def get_model(name, num_classes=10):
    if name == "cnn":
        return CifarCNN(num_classes)
    if name == "mlp":
        return MnistMLP(num_classes)
    raise ValueError(name)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def state_size_mb(model):
    return sum(t.numel() * t.element_size() for t in model.state_dict().values()) / 2 ** 20
