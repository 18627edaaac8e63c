from functools import partial

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from callbacks import DeviceCallback, OneCycleScheduler, Recorder
from engine import Learner


def conv_block(ni, nf, stride=2):
    return nn.Sequential(nn.Conv2d(ni, nf, 3, stride=stride, padding=1, bias=False),
                         nn.BatchNorm2d(nf), nn.ReLU())


def get_model():
    return nn.Sequential(conv_block(1, 16), conv_block(16, 32), conv_block(32, 64),
                         conv_block(64, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10))


tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.2860,), (0.3530,))])
train_dl = DataLoader(datasets.FashionMNIST("data", train=True, download=True, transform=tfm),
                      batch_size=256, shuffle=True, num_workers=4)
valid_dl = DataLoader(datasets.FashionMNIST("data", train=False, download=True, transform=tfm),
                      batch_size=512, num_workers=4)

recorder = Recorder()
learn = Learner(get_model(), train_dl, valid_dl, nn.CrossEntropyLoss(),
                partial(torch.optim.AdamW, weight_decay=1e-2), lr=3e-3,
                callbacks=[DeviceCallback(), OneCycleScheduler(), recorder])
learn.fit(5)
torch.save(learn.model.state_dict(), "fmnist_cnn.pt")
