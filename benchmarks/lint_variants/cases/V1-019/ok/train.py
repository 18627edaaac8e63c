import argparse
import os

import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as transforms
import torchvision.utils as vutils

from models import Discriminator, Generator, weights_init

parser = argparse.ArgumentParser()
parser.add_argument("--dataroot", required=True)
parser.add_argument("--batchSize", type=int, default=128)
parser.add_argument("--imageSize", type=int, default=64)
parser.add_argument("--nz", type=int, default=100)
parser.add_argument("--niter", type=int, default=25)
parser.add_argument("--lr", type=float, default=0.0002)
parser.add_argument("--beta1", type=float, default=0.5)
parser.add_argument("--sample_every", type=int, default=500)
parser.add_argument("--outf", default="out")
opt = parser.parse_args()
os.makedirs(opt.outf, exist_ok=True)

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
dataset = dset.ImageFolder(root=opt.dataroot, transform=transforms.Compose([
    transforms.Resize(opt.imageSize), transforms.CenterCrop(opt.imageSize),
    transforms.ToTensor(), transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))]))
dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, shuffle=True, num_workers=4)

netG = Generator(opt.nz).to(device)
netG.apply(weights_init)
netD = Discriminator().to(device)
netD.apply(weights_init)
criterion = nn.BCEWithLogitsLoss()
fixed_noise = torch.randn(64, opt.nz, 1, 1, device=device)
optimizerD = torch.optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

netG.train()
netD.train()
iters = 0
for epoch in range(opt.niter):
    for i, (real, _) in enumerate(dataloader):
        real = real.to(device)
        b = real.size(0)
        netD.zero_grad()
        errD_real = criterion(netD(real), torch.ones(b, device=device))
        noise = torch.randn(b, opt.nz, 1, 1, device=device)
        fake = netG(noise)
        errD_fake = criterion(netD(fake.detach()), torch.zeros(b, device=device))
        (errD_real + errD_fake).backward()
        optimizerD.step()

        netG.zero_grad()
        errG = criterion(netD(fake), torch.ones(b, device=device))
        errG.backward()
        optimizerG.step()

        if i % 100 == 0:
            print(f"[{epoch}/{opt.niter}][{i}/{len(dataloader)}] Loss_D: {(errD_real + errD_fake).item():.4f} "
                  f"Loss_G: {errG.item():.4f}")
        if iters % opt.sample_every == 0:
            netG.eval()
            with torch.no_grad():
                samples = netG(fixed_noise).detach().cpu()
            vutils.save_image(samples, f"{opt.outf}/fake_samples_{iters:06d}.png", normalize=True)
            netG.train()
        iters += 1

    torch.save(netG.state_dict(), f"{opt.outf}/netG_epoch_{epoch}.pth")
    torch.save(netD.state_dict(), f"{opt.outf}/netD_epoch_{epoch}.pth")
