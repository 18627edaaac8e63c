import torch
import torch.nn as nn

adversarial_loss = nn.BCEWithLogitsLoss()


def train_step(netG, netD, optG, optD, real, nz, device, real_label=0.9):
    b = real.size(0)
    real = real.to(device)
    optD.zero_grad()
    optG.zero_grad()

    z = torch.randn(b, nz, 1, 1, device=device)
    fake = netG(z)
    ones = torch.full((b,), real_label, device=device)
    zeros = torch.zeros(b, device=device)

    # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
    out_real = netD(real)
    out_fake = netD(fake.detach())
    errD = adversarial_loss(out_real, ones) + adversarial_loss(out_fake, zeros)
    errD.backward(retain_graph=True)
    optD.step()

    # (2) update G: maximize log(D(G(z)))
    out_gen = netD(fake)
    errG = adversarial_loss(out_gen, torch.ones(b, device=device))
    errG.backward()
    optG.step()

    return {
        "loss_D": errD.item(),
        "loss_G": errG.item(),
        "D_x": torch.sigmoid(out_real).mean().item(),
        "D_G_z": torch.sigmoid(out_gen).mean().item(),
    }


@torch.no_grad()
def sample(netG, fixed_noise):
    netG.eval()
    imgs = netG(fixed_noise)
    netG.train()
    return imgs
