import timm
import torch
import torch.nn as nn
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder

from callbacks import OptimizerCallback, Recorder
from learner import Learner

BS, ACCUM, EPOCHS, LR = 16, 4, 10, 3e-4

tf_train = T.Compose([T.RandomResizedCrop(384), T.RandomHorizontalFlip(), T.ToTensor(),
                      T.Normalize([0.5] * 3, [0.5] * 3)])
tf_valid = T.Compose([T.Resize(384), T.CenterCrop(384), T.ToTensor(), T.Normalize([0.5] * 3, [0.5] * 3)])
train_dl = DataLoader(ImageFolder("data/train", tf_train), batch_size=BS, shuffle=True, num_workers=8, drop_last=True)
valid_dl = DataLoader(ImageFolder("data/valid", tf_valid), batch_size=BS * 2, num_workers=8)

model = timm.create_model("convnext_small", pretrained=True, num_classes=len(train_dl.dataset.classes))
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.05)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=EPOCHS * len(train_dl) // ACCUM + 1)

learn = Learner(model, (train_dl, valid_dl), nn.CrossEntropyLoss(label_smoothing=0.1), opt, sched,
                cbs=[OptimizerCallback(accumulation_steps=ACCUM, grad_clip=1.0), Recorder()])
learn.fit(EPOCHS)
torch.save(learn.model.state_dict(), "convnext_small_ft.pth")
