#!/usr/bin/env python
# coding: utf-8

# # Character-level GPT on tiny-shakespeare
# Exported from `train_shakespeare.ipynb`.

# In[1]:


import math
import time

import numpy as np
import torch

from gpt import GPT


# In[2]:


batch_size = 16
block_size = 256
gradient_accumulation_steps = 8
max_iters = 5000
eval_interval = 250
eval_iters = 100
learning_rate = 1e-3
min_lr = 1e-4
warmup_iters = 100
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(1337)


# In[3]:


text = open("input.txt", encoding="utf-8").read()
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
data = np.array([stoi[c] for c in text], dtype=np.int64)
n = int(0.9 * len(data))
train_data, val_data = data[:n], data[n:]


def get_batch(split):
    d = train_data if split == "train" else val_data
    ix = np.random.randint(0, len(d) - block_size, batch_size)
    x = torch.stack([torch.from_numpy(d[i:i + block_size]) for i in ix])
    y = torch.stack([torch.from_numpy(d[i + 1:i + 1 + block_size]) for i in ix])
    return x.to(device), y.to(device)


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * it / warmup_iters
    ratio = (it - warmup_iters) / (max_iters - warmup_iters)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (learning_rate - min_lr)


@torch.no_grad()
def estimate_loss(model):
    out = {}
    model.eval()
    for split in ("train", "val"):
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            _, loss = model(*get_batch(split))
            losses[k] = loss.item()
        out[split] = losses.mean().item()
    model.train()
    return out


# In[4]:


model = GPT(len(chars), block_size=block_size).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.99), weight_decay=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=(device == "cuda"))
print(f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters")


# In[5]:


t0 = time.time()
for it in range(max_iters + 1):
    for g in optimizer.param_groups:
        g["lr"] = get_lr(it)
    if it % eval_interval == 0:
        losses = estimate_loss(model)
        print(f"step {it}: train {losses['train']:.4f}, val {losses['val']:.4f}, {time.time() - t0:.0f}s")

    for micro_step in range(gradient_accumulation_steps):
        X, Y = get_batch("train")
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=(device == "cuda")):
            _, loss = model(X, Y)
        scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)


# In[6]:


torch.save(model.state_dict(), "ckpt_shakespeare.pt")
