import torch
import torch.nn as nn
import torch.nn.functional as F
import torchaudio


class LogMel(nn.Module):
    def __init__(self, sample_rate=16000, n_mels=40):
        super().__init__()
        self.mel = torchaudio.transforms.MelSpectrogram(sample_rate, n_fft=480, hop_length=160, n_mels=n_mels)

    def forward(self, wav):
        return torch.log(self.mel(wav) + 1e-6)


class KWSNet(nn.Module):
    def __init__(self, n_classes=12, n_mels=40, channels=64):
        super().__init__()
        self.frontend = LogMel(n_mels=n_mels)
        self.conv = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(channels, n_classes)

    def forward(self, wav):
        x = self.frontend(wav).unsqueeze(1)
        x = self.conv(x).flatten(1)
        return self.fc(x)

    def predict(self, wav):
        return F.softmax(self.forward(wav), dim=-1)
