import torch
import torch.nn as nn
import torchvision.utils as vutils


class GANTrainer:
    def __init__(self, netG, netD, opt, device):
        self.netG, self.netD = netG, netD
        self.opt = opt
        self.device = device
        self.criterion = nn.BCEWithLogitsLoss()
        self.optimizerD = torch.optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizerG = torch.optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.fixed_noise = torch.randn(64, opt.nz, 1, 1, device=device)

    def train_step(self, real):
        b = real.size(0)
        ones = torch.ones(b, device=self.device)
        zeros = torch.zeros(b, device=self.device)
        noise = torch.randn(b, self.opt.nz, 1, 1, device=self.device)
        fake = self.netG(noise)

        self.optimizerD.zero_grad()
        d_real = self.netD(real)
        d_fake = self.netD(fake.detach())
        errD = self.criterion(d_real, ones) + self.criterion(d_fake, zeros)
        errD.backward(retain_graph=True)
        self.optimizerD.step()

        self.optimizerG.zero_grad()
        errG = self.criterion(self.netD(fake), ones)
        errG.backward()
        self.optimizerG.step()
        return errD.item(), errG.item()

    def train(self, dataloader, epochs):
        for epoch in range(epochs):
            for i, (real, _) in enumerate(dataloader):
                errD, errG = self.train_step(real.to(self.device))
                if i % 50 == 0:
                    print(f"[{epoch}/{epochs}][{i}/{len(dataloader)}] Loss_D: {errD:.4f} Loss_G: {errG:.4f}")
            with torch.no_grad():
                samples = self.netG(self.fixed_noise).detach().cpu()
            vutils.save_image(samples, f"{self.opt.outf}/fake_samples_epoch_{epoch:03d}.png", normalize=True)
            torch.save(self.netG.state_dict(), f"{self.opt.outf}/netG_epoch_{epoch}.pth")
