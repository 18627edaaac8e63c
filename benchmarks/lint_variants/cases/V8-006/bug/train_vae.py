#!/usr/bin/env python
# coding: utf-8

# # Chemical VAE on ZINC250k
# Character-level SMILES VAE: conv encoder, GRU decoder, KL annealing.

# In[1]:


import logging
import os

import torch
from torch.utils.data import DataLoader, random_split

from losses import KLAnnealer, format_metrics, gradient_norm, reconstruction_rate, summarize, token_accuracy, vae_loss
from model import MoleculeVAE
from smiles_data import SmilesDataset, one_hot

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("chemvae")


# In[2]:


DATA = "data/250k_rndm_zinc_drugs_clean.smi"
MAX_LEN, LATENT, BATCH, EPOCHS, LR = 120, 196, 256, 60, 1e-3
CKPT_DIR = "checkpoints"
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(7)


# In[3]:


full = SmilesDataset(DATA, max_len=MAX_LEN)
vocab = full.vocab
n_val = len(full) // 10
train_set, val_set = random_split(full, [len(full) - n_val, n_val], generator=torch.Generator().manual_seed(7))
train_loader = DataLoader(train_set, batch_size=BATCH, shuffle=True, num_workers=4, drop_last=True)
val_loader = DataLoader(val_set, batch_size=BATCH)
log.info("vocab size %d, train %d, val %d", len(vocab), len(train_set), len(val_set))


# In[4]:


model = MoleculeVAE(len(vocab), MAX_LEN, LATENT).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
annealer = KLAnnealer(start_epoch=5, end_epoch=30)


def run_epoch(loader, beta, train=True):
    model.train(train)
    history = []
    for ids in loader:
        ids = ids.to(device)
        x = one_hot(ids, len(vocab))
        mask = (ids != vocab.pad_idx).float()
        with torch.set_grad_enabled(train):
            probs, mu, logvar = model(x)
            loss, recon, kl = vae_loss(probs, x, mask, mu, logvar, beta)
        if train:
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
        history.append({"loss": loss.item(), "recon": recon.item(), "kl": kl.item(),
                        "tok_acc": token_accuracy(probs, ids, mask), "recon_rate": reconstruction_rate(probs, ids, mask)})
    return summarize(history)


# In[5]:


os.makedirs(CKPT_DIR, exist_ok=True)
best = float("inf")
for epoch in range(EPOCHS):
    beta = annealer(epoch)
    tr = run_epoch(train_loader, beta, train=True)
    va = run_epoch(val_loader, beta, train=False)
    log.info("epoch %d beta %.3f | %s | %s | gnorm %.3f", epoch, beta, format_metrics("train", tr),
             format_metrics("val", va), gradient_norm(model.parameters()))
    if va["loss"] < best:
        best = va["loss"]
        torch.save({"model": model.state_dict(), "vocab": vocab.itos, "epoch": epoch}, f"{CKPT_DIR}/best.pt")


# In[6]:


model.eval()
samples = model.sample(16, device, sos_idx=vocab.stoi["^"])
for row in samples.tolist():
    print(vocab.decode(row))
