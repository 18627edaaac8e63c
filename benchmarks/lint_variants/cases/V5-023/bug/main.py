import argparse

import torch
import torchvision.datasets as dset
import torchvision.transforms as transforms

from gan_trainer import GANTrainer
from models import Discriminator, Generator, weights_init

parser = argparse.ArgumentParser()
parser.add_argument("--dataroot", required=True)
parser.add_argument("--batchSize", type=int, default=128)
parser.add_argument("--imageSize", type=int, default=64)
parser.add_argument("--nz", type=int, default=100)
parser.add_argument("--niter", type=int, default=25)
parser.add_argument("--lr", type=float, default=0.0002)
parser.add_argument("--beta1", type=float, default=0.5)
parser.add_argument("--outf", default="./samples")
opt = parser.parse_args()

dataset = dset.ImageFolder(root=opt.dataroot, transform=transforms.Compose([
    transforms.Resize(opt.imageSize), transforms.CenterCrop(opt.imageSize), transforms.ToTensor(),
    transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))]))
dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, shuffle=True, num_workers=2)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
netG = Generator(opt.nz).to(device)
netG.apply(weights_init)
netD = Discriminator().to(device)
netD.apply(weights_init)
GANTrainer(netG, netD, opt, device).train(dataloader, opt.niter)
