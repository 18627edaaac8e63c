import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, in_planes, out_planes, stride, drop_rate=0.0):
        super(BasicBlock, self).__init__()
        self.bn1 = nn.BatchNorm2d(in_planes, momentum=0.001)
        self.relu1 = nn.LeakyReLU(negative_slope=0.1, inplace=True)
        self.conv1 = nn.Conv2d(in_planes, out_planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_planes, momentum=0.001)
        self.relu2 = nn.LeakyReLU(negative_slope=0.1, inplace=True)
        self.conv2 = nn.Conv2d(out_planes, out_planes, 3, 1, 1, bias=False)
        self.drop_rate = drop_rate
        self.equal_in_out = in_planes == out_planes
        self.shortcut = (not self.equal_in_out) and nn.Conv2d(in_planes, out_planes, 1, stride, 0, bias=False) or None

    def forward(self, x):
        o = self.relu1(self.bn1(x))
        y = self.conv1(o)
        y = self.relu2(self.bn2(y))
        if self.drop_rate > 0:
            y = nn.functional.dropout(y, p=self.drop_rate, training=self.training)
        y = self.conv2(y)
        return (x if self.equal_in_out else self.shortcut(o)) + y


class NetworkBlock(nn.Sequential):
    def __init__(self, nb_layers, in_planes, out_planes, stride, drop_rate=0.0):
        super().__init__(*[BasicBlock(in_planes if i == 0 else out_planes, out_planes,
                                      stride if i == 0 else 1, drop_rate) for i in range(nb_layers)])


class WideResNet(nn.Module):
    def __init__(self, num_classes, depth=28, widen_factor=2, drop_rate=0.0):
        super(WideResNet, self).__init__()
        channels = [16, 16 * widen_factor, 32 * widen_factor, 64 * widen_factor]
        n = (depth - 4) // 6
        self.conv1 = nn.Conv2d(3, channels[0], 3, 1, 1, bias=False)
        self.block1 = NetworkBlock(n, channels[0], channels[1], 1, drop_rate)
        self.block2 = NetworkBlock(n, channels[1], channels[2], 2, drop_rate)
        self.block3 = NetworkBlock(n, channels[2], channels[3], 2, drop_rate)
        self.bn1 = nn.BatchNorm2d(channels[3], momentum=0.001)
        self.relu = nn.LeakyReLU(negative_slope=0.1, inplace=True)
        self.fc = nn.Linear(channels[3], num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="leaky_relu")
            elif isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        out = self.block3(self.block2(self.block1(self.conv1(x))))
        out = F.adaptive_avg_pool2d(self.relu(self.bn1(out)), 1)
        return self.fc(out.view(out.size(0), -1))


def build_wideresnet(depth, widen_factor, dropout, num_classes):
    return WideResNet(num_classes=num_classes, depth=depth, widen_factor=widen_factor, drop_rate=dropout)
