import torch
import torch.nn as nn


class SEBlock(nn.Module):
    def __init__(self, channels, bottleneck=128):
        super().__init__()
        self.se = nn.Sequential(
            nn.AdaptiveAvgPool1d(1), nn.Conv1d(channels, bottleneck, 1), nn.ReLU(),
            nn.BatchNorm1d(bottleneck), nn.Conv1d(bottleneck, channels, 1), nn.Sigmoid(),
        )

    def forward(self, x):
        return x * self.se(x)


class TDNNBlock(nn.Module):
    def __init__(self, cin, cout, kernel, dilation):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, kernel, dilation=dilation, padding=dilation * (kernel // 2))
        self.bn = nn.BatchNorm1d(cout)
        self.se = SEBlock(cout)

    def forward(self, x):
        return self.se(self.bn(torch.relu(self.conv(x))))


class SpeakerNet(nn.Module):
    def __init__(self, n_mels=80, channels=512, emb_dim=192):
        super().__init__()
        self.blocks = nn.Sequential(
            TDNNBlock(n_mels, channels, 5, 1), TDNNBlock(channels, channels, 3, 2),
            TDNNBlock(channels, channels, 3, 3), TDNNBlock(channels, channels, 3, 4),
        )
        self.pool_bn = nn.BatchNorm1d(channels * 2)
        self.fc = nn.Linear(channels * 2, emb_dim)
        self.emb_bn = nn.BatchNorm1d(emb_dim)

    def forward(self, feats):
        x = self.blocks(feats)
        stats = torch.cat([x.mean(-1), x.std(-1)], dim=1)
        return self.emb_bn(self.fc(self.pool_bn(stats)))
