import torch
import torch.nn as nn


class OmicsClassifier(nn.Module):
    def __init__(self, n_in, n_classes, hidden=(512, 128), dropout=0.5):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(n_in, hidden[0]), nn.BatchNorm1d(hidden[0]), nn.ELU(), nn.Dropout(dropout),
            nn.Linear(hidden[0], hidden[1]), nn.BatchNorm1d(hidden[1]), nn.ELU(), nn.Dropout(dropout))
        self.classifier = nn.Linear(hidden[1], n_classes)

    def forward(self, x):
        return self.classifier(self.encoder(x))

    @torch.no_grad()
    def predict_proba(self, x):
        self.eval()
        return torch.softmax(self.forward(x), dim=1)
