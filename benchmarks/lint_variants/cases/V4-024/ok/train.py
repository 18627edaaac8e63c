import argparse
import os

import torch
import torchvision.transforms as T
import torchvision.utils as vutils
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder

from engine import sample, train_step
from networks import DCDiscriminator, DCGenerator, weights_init


def get_opts():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", default="data/celeba")
    p.add_argument("--image_size", type=int, default=64)
    p.add_argument("--batch_size", type=int, default=128)
    p.add_argument("--nz", type=int, default=100)
    p.add_argument("--niter", type=int, default=25)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--beta1", type=float, default=0.5)
    p.add_argument("--outf", default="out")
    return p.parse_args()


def main():
    opt = get_opts()
    os.makedirs(opt.outf, exist_ok=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf = T.Compose([T.Resize(opt.image_size), T.CenterCrop(opt.image_size), T.ToTensor(),
                    T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
    loader = DataLoader(ImageFolder(opt.dataroot, tf), batch_size=opt.batch_size, shuffle=True,
                        num_workers=4, drop_last=True)

    netG = DCGenerator(opt.nz).to(device).apply(weights_init)
    netD = DCDiscriminator().to(device).apply(weights_init)
    optG = torch.optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
    fixed_noise = torch.randn(64, opt.nz, 1, 1, device=device)

    for epoch in range(opt.niter):
        for i, (real, _) in enumerate(loader):
            stats = train_step(netG, netD, optG, optD, real, opt.nz, device)
            if i % 100 == 0:
                print(f"[{epoch}/{opt.niter}][{i}/{len(loader)}] " +
                      " ".join(f"{k}: {v:.4f}" for k, v in stats.items()))
        vutils.save_image(sample(netG, fixed_noise), f"{opt.outf}/fake_epoch_{epoch:03d}.png", normalize=True)
        torch.save({"netG": netG.state_dict(), "netD": netD.state_dict()}, f"{opt.outf}/ckpt.pth")


if __name__ == "__main__":
    main()
