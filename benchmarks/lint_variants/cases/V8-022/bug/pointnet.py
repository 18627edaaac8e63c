import torch
import torch.nn as nn
import torch.nn.functional as F


class STNkd(nn.Module):
    def __init__(self, k=64):
        super().__init__()
        self.k = k
        self.convs = nn.Sequential(
            nn.Conv1d(k, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
            nn.Conv1d(128, 1024, 1), nn.BatchNorm1d(1024), nn.ReLU(),
        )
        self.fc = nn.Sequential(
            nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(),
            nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(),
            nn.Linear(256, k * k),
        )

    def forward(self, x):
        x = self.convs(x).max(dim=2).values
        iden = torch.eye(self.k, device=x.device).flatten()
        return (self.fc(x) + iden).view(-1, self.k, self.k)


class PointNetPartSeg(nn.Module):
    def __init__(self, num_parts=50, num_classes=16):
        super().__init__()
        self.num_classes = num_classes
        self.stn = STNkd(3)
        self.conv1 = nn.Sequential(nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU())
        self.conv2 = nn.Sequential(nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU())
        self.conv3 = nn.Sequential(nn.Conv1d(128, 128, 1), nn.BatchNorm1d(128), nn.ReLU())
        self.fstn = STNkd(128)
        self.conv4 = nn.Sequential(nn.Conv1d(128, 512, 1), nn.BatchNorm1d(512), nn.ReLU())
        self.conv5 = nn.Sequential(nn.Conv1d(512, 2048, 1), nn.BatchNorm1d(2048))
        in_seg = 64 + 128 + 128 + 512 + 2048 + 2048 + num_classes
        self.seg_head = nn.Sequential(
            nn.Conv1d(in_seg, 256, 1), nn.BatchNorm1d(256), nn.ReLU(),
            nn.Conv1d(256, 256, 1), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),
            nn.Conv1d(256, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
            nn.Conv1d(128, num_parts, 1),
        )

    def forward(self, points, cls_label):
        b, n, _ = points.shape
        x = points.transpose(2, 1)
        x = torch.bmm(self.stn(x), x)
        out1 = self.conv1(x)
        out2 = self.conv2(out1)
        out3 = self.conv3(out2)
        trans_feat = self.fstn(out3)
        net = torch.bmm(trans_feat, out3)
        out4 = self.conv4(net)
        out5 = self.conv5(out4)
        g = out5.max(dim=2, keepdim=True).values
        onehot = F.one_hot(cls_label, self.num_classes).float().unsqueeze(-1)
        g = torch.cat([g, onehot], dim=1).expand(-1, -1, n)
        feats = torch.cat([g, out1, out2, out3, out4, out5], dim=1)
        logits = self.seg_head(feats).transpose(2, 1)
        return F.log_softmax(logits, dim=-1), trans_feat


def feature_transform_regularizer(trans):
    d = trans.size(1)
    eye = torch.eye(d, device=trans.device)[None]
    return torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - eye, dim=(1, 2)))
