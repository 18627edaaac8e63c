import os

import torch
import torch.nn as nn
import torchvision.utils as vutils

from models import Discriminator, Generator, weights_init


class Solver:
    def __init__(self, opt, device):
        self.opt = opt
        self.device = device
        self.netG = Generator(opt.nz, opt.ngf).to(device)
        self.netD = Discriminator(opt.ndf).to(device)
        self.netG.apply(weights_init)
        self.netD.apply(weights_init)
        self.criterion = nn.BCEWithLogitsLoss()
        self.optimizerD = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizerG = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.fixed_noise = torch.randn(64, opt.nz, 1, 1, device=device)

    def train_step(self, real):
        b = real.size(0)
        real_label = torch.ones(b, device=self.device)
        fake_label = torch.zeros(b, device=self.device)

        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        self.optimizerD.zero_grad()
        errD_real = self.criterion(self.netD(real), real_label)
        noise = torch.randn(b, self.opt.nz, 1, 1, device=self.device)
        fake = self.netG(noise)
        errD_fake = self.criterion(self.netD(fake.detach()), fake_label)
        errD = errD_real + errD_fake
        errD.backward()
        self.optimizerD.step()

        # (2) Update G network: maximize log(D(G(z)))
        self.netG.zero_grad()
        errG = self.criterion(self.netD(fake), real_label)
        errG.backward()
        self.optimizerG.step()
        return errD.item(), errG.item()

    def train(self, dataloader):
        for epoch in range(self.opt.niter):
            for i, (real, _) in enumerate(dataloader):
                errD, errG = self.train_step(real.to(self.device))
                if i % 100 == 0:
                    print("[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f"
                          % (epoch, self.opt.niter, i, len(dataloader), errD, errG))
            with torch.no_grad():
                fake = self.netG(self.fixed_noise)
            vutils.save_image(fake, os.path.join(self.opt.outf, "fake_epoch_%03d.png" % epoch), normalize=True)
            torch.save(self.netG.state_dict(), os.path.join(self.opt.outf, "netG_epoch_%d.pth" % epoch))
