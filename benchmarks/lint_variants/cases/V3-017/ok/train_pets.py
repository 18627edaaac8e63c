from types import SimpleNamespace

import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms

from callbacks import Recorder, ValidateCallback, accuracy, error_rate
from learner import Learner

path = "data/oxford-iiit-pet"
item_tfms = transforms.Compose([transforms.Resize((224, 224)), transforms.ToTensor(),
                                transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
train_ds = torchvision.datasets.OxfordIIITPet(path, split="trainval", transform=item_tfms, download=True)
valid_ds = torchvision.datasets.OxfordIIITPet(path, split="test", transform=item_tfms)
dls = SimpleNamespace(train=DataLoader(train_ds, batch_size=64, shuffle=True, num_workers=8),
                      valid=DataLoader(valid_ds, batch_size=128, num_workers=8))

body = torchvision.models.resnet34(weights="IMAGENET1K_V1")
body.fc = nn.Sequential(nn.BatchNorm1d(512), nn.Dropout(0.25), nn.Linear(512, 512), nn.ReLU(),
                        nn.BatchNorm1d(512), nn.Dropout(0.5), nn.Linear(512, 37))
learn = Learner(body.cuda(), dls, nn.CrossEntropyLoss(), lr=1e-3,
                cbs=[Recorder(), ValidateCallback([accuracy, error_rate])])
learn.fit(8)
