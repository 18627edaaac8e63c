import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms as T

from callbacks import EarlyStopping, Recorder, ValidationCallback
from learner import Learner, accuracy

norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
train_tfms = T.Compose([T.RandomResizedCrop(224, scale=(0.35, 1)), T.RandomHorizontalFlip(), T.ToTensor(), norm])
valid_tfms = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm])
train_ds = torchvision.datasets.OxfordIIITPet("data", split="trainval", transform=train_tfms, download=True)
valid_ds = torchvision.datasets.OxfordIIITPet("data", split="test", transform=valid_tfms, download=True)
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True, num_workers=8)
valid_dl = DataLoader(valid_ds, batch_size=128, num_workers=8)

body = torchvision.models.resnet34(weights="IMAGENET1K_V1")
body.fc = nn.Sequential(nn.BatchNorm1d(512), nn.Dropout(0.25), nn.Linear(512, 512), nn.ReLU(),
                        nn.BatchNorm1d(512), nn.Dropout(0.5), nn.Linear(512, 37))
learn = Learner(body, train_dl, nn.CrossEntropyLoss(), lr=3e-4,
                cbs=[Recorder(), ValidationCallback(valid_dl, accuracy), EarlyStopping(patience=3)])
learn.fit(12)
