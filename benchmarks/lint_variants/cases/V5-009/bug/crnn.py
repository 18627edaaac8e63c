import torch.nn as nn


class BidirectionalLSTM(nn.Module):
    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.rnn = nn.LSTM(n_in, n_hidden, bidirectional=True)
        self.embedding = nn.Linear(n_hidden * 2, n_out)

    def forward(self, x):
        recurrent, _ = self.rnn(x)
        T, b, h = recurrent.size()
        out = self.embedding(recurrent.view(T * b, h))
        return out.view(T, b, -1)


class CRNN(nn.Module):
    def __init__(self, img_h, nc, nclass, nh=256):
        super().__init__()
        assert img_h % 16 == 0
        cfg = [(nc, 64, False), (64, 128, False), (128, 256, True), (256, 256, False),
               (256, 512, True), (512, 512, False), (512, 512, True)]
        layers = []
        for i, (cin, cout, bn) in enumerate(cfg):
            k, p = (2, 0) if i == 6 else (3, 1)
            layers.append(nn.Conv2d(cin, cout, k, 1, p))
            if bn:
                layers.append(nn.BatchNorm2d(cout))
            layers.append(nn.ReLU(True))
            if i in (0, 1):
                layers.append(nn.MaxPool2d(2, 2))
            elif i in (3, 5):
                layers.append(nn.MaxPool2d((2, 2), (2, 1), (0, 1)))
        self.cnn = nn.Sequential(*layers)
        self.rnn = nn.Sequential(BidirectionalLSTM(512, nh, nh), BidirectionalLSTM(nh, nh, nclass))

    def forward(self, x):
        conv = self.cnn(x)
        b, c, h, w = conv.size()
        assert h == 1, "the height of conv must be 1"
        conv = conv.squeeze(2).permute(2, 0, 1)
        return self.rnn(conv)
