import torch
import torch.autograd as autograd


def gradient_penalty(netD, real, fake, device, lmbda=10.0):
    alpha = torch.rand(real.size(0), 1, 1, device=device)
    interpolates = alpha * real + (1 - alpha) * fake
    interpolates.requires_grad_(True)
    d_interp = netD(interpolates)
    grads = autograd.grad(outputs=d_interp, inputs=interpolates, grad_outputs=torch.ones_like(d_interp),
                          create_graph=True, retain_graph=True, only_inputs=True)[0]
    return lmbda * ((grads.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


def sample_noise(batch_size, latent_dim, device):
    return torch.empty(batch_size, latent_dim, device=device).uniform_(-1, 1)
