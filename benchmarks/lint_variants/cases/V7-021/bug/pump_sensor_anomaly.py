#!/usr/bin/env python
# coding: utf-8

# # Pump sensor anomaly detection with an LSTM autoencoder
# Train on the early, mostly-normal period; flag windows whose reconstruction error exceeds a threshold.

# In[1]:


import argparse
import json
import logging
import os

import numpy as np
import torch
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader

from ae_model import LSTMAutoencoder, count_parameters, save_model
from ts_utils import SlidingWindows, load_sensor_csv, point_adjust, scores, window_labels

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("pump")


# In[2]:


parser = argparse.ArgumentParser()
parser.add_argument("--csv", default="data/pump_sensor.csv")
parser.add_argument("--window", type=int, default=60)
parser.add_argument("--train-frac", type=float, default=0.6)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=256)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--quantile", type=float, default=0.995)
parser.add_argument("--out", default="artifacts")
args, _ = parser.parse_known_args()
os.makedirs(args.out, exist_ok=True)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


# In[3]:


df = load_sensor_csv(args.csv)
labels = (df.pop("machine_status") != "NORMAL").astype(int).to_numpy() if "machine_status" in df else None
SENSOR_COLS = [c for c in df.columns if c.startswith("sensor_")]
values = df[SENSOR_COLS].to_numpy(dtype=np.float32)
split_idx = int(len(values) * args.train_frac)
print(values.shape, "train rows:", split_idx)


# In[4]:


scaler = StandardScaler().fit(values)
scaled = scaler.transform(values).astype(np.float32)
train_arr, test_arr = scaled[:split_idx], scaled[split_idx:]
train_loader = DataLoader(SlidingWindows(train_arr, args.window, stride=5), batch_size=args.batch_size,
                          shuffle=True, drop_last=True)
test_ds = SlidingWindows(test_arr, args.window, stride=1)


# In[5]:


model = LSTMAutoencoder(len(SENSOR_COLS), args.window).to(device)
print("params:", count_parameters(model))
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
for epoch in range(args.epochs):
    model.train()
    epoch_loss = 0.0
    for xb in train_loader:
        xb = xb.to(device)
        loss = torch.nn.functional.mse_loss(model(xb), xb)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        epoch_loss += loss.item() * xb.size(0)
    log.info("epoch %d  mse %.5f", epoch, epoch_loss / (len(train_loader) * args.batch_size))


# In[6]:


def errors(ds):
    errs = []
    for xb in DataLoader(ds, batch_size=1024):
        errs.append(model.reconstruction_error(xb.to(device)).cpu().numpy())
    return np.concatenate(errs)


train_err = errors(SlidingWindows(train_arr, args.window, stride=1))
threshold = float(np.quantile(train_err, args.quantile))
test_err = errors(test_ds)
pred = (test_err > threshold).astype(int)
print(f"threshold={threshold:.4f}, flagged {pred.mean():.2%} of test windows")


# In[7]:


if labels is not None:
    y = window_labels(labels[split_idx:], args.window)
    print("raw:", scores(pred, y))
    print("point-adjusted:", scores(point_adjust(pred, y), y))
save_model(model, os.path.join(args.out, "lstm_ae.pt"), n_features=len(SENSOR_COLS), seq_len=args.window)
with open(os.path.join(args.out, "scaler.json"), "w") as f:
    json.dump({"cols": SENSOR_COLS, "mean": scaler.mean_.tolist(), "scale": scaler.scale_.tolist(),
               "threshold": threshold}, f)
