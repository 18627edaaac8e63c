import os
import time

import numpy as np
import torch

from model import GPT, GPTConfig

out_dir = "out-shakespeare-char"
eval_interval, eval_iters, log_interval = 250, 200, 10
batch_size, block_size = 64, 256
n_layer, n_head, n_embd, dropout = 6, 6, 384, 0.2
learning_rate, max_iters = 1e-3, 5000
dataset = "shakespeare_char"
device = "cuda"
compile = True

data_dir = os.path.join("data", dataset)
train_data = np.memmap(os.path.join(data_dir, "train.bin"), dtype=np.uint16, mode="r")
val_data = np.memmap(os.path.join(data_dir, "val.bin"), dtype=np.uint16, mode="r")


def get_batch(split):
    data = train_data if split == "train" else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([torch.from_numpy(data[i:i + block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + block_size].astype(np.int64)) for i in ix])
    return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)


model = GPT(GPTConfig(block_size=block_size, vocab_size=65, n_layer=n_layer, n_head=n_head,
                      n_embd=n_embd, dropout=dropout)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.99), weight_decay=0.1)
if compile:
    model = torch.compile(model)


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                _, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


best_val_loss = 1e9
X, Y = get_batch("train")
t0 = time.time()
for iter_num in range(max_iters + 1):
    if iter_num % eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if losses["val"] < best_val_loss:
            best_val_loss = losses["val"]
            os.makedirs(out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "iter_num": iter_num}, os.path.join(out_dir, "ckpt.pt"))
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        _, loss = model(X, Y)
    X, Y = get_batch("train")
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if iter_num % log_interval == 0:
        print(f"iter {iter_num}: loss {loss.item():.4f}, time {(time.time() - t0) * 1000:.0f}ms")
        t0 = time.time()
