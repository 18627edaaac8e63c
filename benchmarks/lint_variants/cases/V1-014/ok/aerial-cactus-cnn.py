#!/usr/bin/env python
# coding: utf-8

# In[1]:


import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, random_split
from torchvision import transforms

from helpers import CsvImageDataset, plot_history

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


# In[2]:


train_tf = transforms.Compose([transforms.RandomHorizontalFlip(), transforms.RandomVerticalFlip(),
                               transforms.ToTensor(), transforms.Normalize([0.5] * 3, [0.5] * 3)])
test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5] * 3, [0.5] * 3)])
full = CsvImageDataset("../input/train.csv", "../input/train/", transform=train_tf)
train_ds, val_ds = random_split(full, [15000, len(full) - 15000])
train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=64)


# In[3]:


class CNN(nn.Module):
    def __init__(self):
        super(CNN, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(32)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(64)
        self.conv3 = nn.Conv2d(64, 128, 3, padding=1)
        self.bn3 = nn.BatchNorm2d(128)
        self.fc1 = nn.Linear(128 * 4 * 4, 256)
        self.drop = nn.Dropout(0.4)
        self.fc2 = nn.Linear(256, 2)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.max_pool2d(F.relu(self.bn3(self.conv3(x))), 2)
        x = self.drop(F.relu(self.fc1(x.view(x.size(0), -1))))
        return self.fc2(x)


model = CNN().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)


# In[4]:


history = {"train_loss": [], "val_loss": [], "val_acc": []}
for epoch in range(25):
    model.train()
    train_loss = 0.0
    for data, target in train_loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = criterion(model(data), target)
        loss.backward()
        optimizer.step()
        train_loss += loss.item() * data.size(0)
    model.eval()
    val_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in val_loader:
            data, target = data.to(device), target.to(device)
            out = model(data)
            val_loss += criterion(out, target).item() * data.size(0)
            correct += (out.argmax(1) == target).sum().item()
    history["train_loss"].append(train_loss / len(train_ds))
    history["val_loss"].append(val_loss / len(val_ds))
    history["val_acc"].append(correct / len(val_ds))
    print("Epoch: {} \tTraining Loss: {:.6f} \tValidation Accuracy: {:.4f}".format(
        epoch + 1, history["train_loss"][-1], history["val_acc"][-1]))


# In[5]:


plot_history(history)
torch.save(model.state_dict(), "model_cactus.pt")


# In[6]:


best_model = CNN().to(device)
best_model.load_state_dict(torch.load("model_cactus.pt"))
test_ds = CsvImageDataset("../input/sample_submission.csv", "../input/test/", transform=test_tf,
                          has_labels=False)
test_loader = DataLoader(test_ds, batch_size=64)


# In[7]:


best_model.eval()
preds, ids = [], []
with torch.no_grad():
    for data, img_ids in test_loader:
        probs = F.softmax(best_model(data.to(device)), dim=1)[:, 1]
        preds.extend(probs.cpu().numpy().tolist())
        ids.extend(img_ids)

sub = pd.DataFrame({"id": ids, "has_cactus": np.array(preds)})
sub.to_csv("submission.csv", index=False)
sub.head()
