import torch.nn as nn


class BidirectionalLSTM(nn.Module):
    def __init__(self, nIn, nHidden, nOut):
        super().__init__()
        self.rnn = nn.LSTM(nIn, nHidden, bidirectional=True)
        self.embedding = nn.Linear(nHidden * 2, nOut)

    def forward(self, x):
        recurrent, _ = self.rnn(x)
        T, b, h = recurrent.size()
        output = self.embedding(recurrent.view(T * b, h))
        return output.view(T, b, -1)


class CRNN(nn.Module):
    def __init__(self, imgH, nc, nclass, nh=256):
        super().__init__()
        assert imgH % 16 == 0, "imgH has to be a multiple of 16"
        def block(cin, cout, pool=None, bn=False):
            layers = [nn.Conv2d(cin, cout, 3, 1, 1)]
            if bn:
                layers.append(nn.BatchNorm2d(cout))
            layers.append(nn.ReLU(True))
            if pool is not None:
                layers.append(nn.MaxPool2d(*pool))
            return layers
        self.cnn = nn.Sequential(
            *block(nc, 64, (2, 2)), *block(64, 128, (2, 2)),
            *block(128, 256, bn=True), *block(256, 256, ((2, 2), (2, 1), (0, 1))),
            *block(256, 512, bn=True), *block(512, 512, ((2, 2), (2, 1), (0, 1))),
            nn.Conv2d(512, 512, 2, 1, 0), nn.BatchNorm2d(512), nn.ReLU(True))
        self.rnn = nn.Sequential(BidirectionalLSTM(512, nh, nh), BidirectionalLSTM(nh, nh, nclass))

    def forward(self, x):
        conv = self.cnn(x)
        b, c, h, w = conv.size()
        assert h == 1, "the height of conv must be 1"
        conv = conv.squeeze(2).permute(2, 0, 1)
        return self.rnn(conv).log_softmax(2)
