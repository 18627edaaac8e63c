#!/usr/bin/env python
# coding: utf-8

# # Variational Autoencoder on MNIST

# In[1]:


import matplotlib.pyplot as plt
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from torchvision.utils import save_image

from vae import VAE, vae_loss


# In[2]:


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
batch_size = 128
epochs = 20

train_loader = DataLoader(
    datasets.MNIST("../data", train=True, download=True, transform=transforms.ToTensor()),
    batch_size=batch_size, shuffle=True)
test_loader = DataLoader(
    datasets.MNIST("../data", train=False, transform=transforms.ToTensor()),
    batch_size=batch_size, shuffle=False)


# In[3]:


model = VAE().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


# In[4]:


train_history, test_history = [], []
for epoch in range(1, epochs + 1):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = vae_loss(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % 100 == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}]"
                  f"\tLoss: {loss.item() / len(data):.6f}")
    train_history.append(train_loss / len(train_loader.dataset))

    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            data = data.to(device)
            recon_batch, mu, logvar = model(data)
            test_loss += vae_loss(recon_batch, data, mu, logvar).item()
            if i == 0:
                comparison = torch.cat([data[:8], recon_batch.view(batch_size, 1, 28, 28)[:8]])
                save_image(comparison.cpu(), f"results/reconstruction_{epoch}.png", nrow=8)
    test_history.append(test_loss / len(test_loader.dataset))
    print(f"====> Epoch {epoch} train {train_history[-1]:.4f} test {test_history[-1]:.4f}")


# In[5]:


plt.plot(train_history, label="train")
plt.plot(test_history, label="test")
plt.legend()
plt.show()


# In[6]:


with torch.no_grad():
    sample = model.decode(torch.randn(64, 20).to(device)).cpu()
    save_image(sample.view(64, 1, 28, 28), "results/sample.png")
