import torch.nn as nn


class SpeechRecognitionModel(nn.Module):
    def __init__(self, n_feats=128, n_cnn_channels=32, rnn_dim=512, n_rnn_layers=3, n_class=29, dropout=0.1):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, n_cnn_channels, 3, stride=2, padding=1),
            nn.GELU(),
            nn.Conv2d(n_cnn_channels, n_cnn_channels, 3, stride=1, padding=1),
            nn.GELU(),
        )
        self.fc = nn.Linear(n_cnn_channels * (n_feats // 2), rnn_dim)
        self.rnn = nn.GRU(rnn_dim, rnn_dim, num_layers=n_rnn_layers, batch_first=True,
                          bidirectional=True, dropout=dropout)
        self.classifier = nn.Sequential(nn.Linear(rnn_dim * 2, rnn_dim), nn.GELU(), nn.Dropout(dropout),
                                        nn.Linear(rnn_dim, n_class))

    def forward(self, x):
        # x: (B, 1, n_feats, T)
        x = self.cnn(x)
        b, c, f, t = x.size()
        x = x.permute(0, 3, 1, 2).reshape(b, t, c * f)
        x, _ = self.rnn(self.fc(x))
        return self.classifier(x)   # (B, T, n_class)
