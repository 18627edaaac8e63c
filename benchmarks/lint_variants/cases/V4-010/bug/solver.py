import os

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

from model import EDSR
from opts import parse_opts
from utils import SRDataset, calc_psnr, Timer


class Solver:
    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cpu" if opt.cpu else "cuda")
        self.model = EDSR(opt).to(self.device)
        self.criterion = nn.L1Loss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=opt.lr, betas=(0.9, 0.999))
        self.scheduler = StepLR(self.optimizer, step_size=opt.lr_decay, gamma=opt.gamma)
        self.train_loader = torch.utils.data.DataLoader(
            SRDataset(opt.train_dir, opt.scale, opt.patch_size, train=True),
            batch_size=opt.batch_size, shuffle=True, num_workers=8, drop_last=True)
        self.val_loader = torch.utils.data.DataLoader(
            SRDataset(opt.val_dir, opt.scale, train=False), batch_size=1)
        self.best_psnr = 0.0

    def train_epoch(self, epoch):
        self.model.train()
        timer = Timer()
        for i, (lr, hr) in enumerate(self.train_loader):
            lr, hr = lr.to(self.device), hr.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(lr), hr)
            loss.backward()
            self.optimizer.step()
            if (i + 1) % 100 == 0:
                print(f"[Epoch {epoch}] [{(i + 1) * self.opt.batch_size}/{len(self.train_loader.dataset)}]"
                      f" L1: {loss.item():.4f}  {timer.toc():.1f}s")

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total = 0.0
        for lr, hr in self.val_loader:
            sr = self.model(lr.to(self.device)).clamp(0, 1)
            total += calc_psnr(sr, hr.to(self.device), self.opt.scale)
        return total / len(self.val_loader)

    def fit(self):
        os.makedirs(self.opt.save_dir, exist_ok=True)
        for epoch in range(1, self.opt.epochs + 1):
            self.scheduler.step()
            print(f"Epoch {epoch}  lr {self.scheduler.get_last_lr()[0]:.2e}")
            self.train_epoch(epoch)
            psnr = self.validate()
            print(f"[Epoch {epoch}] PSNR x{self.opt.scale}: {psnr:.3f} (best {self.best_psnr:.3f})")
            if psnr > self.best_psnr:
                self.best_psnr = psnr
                torch.save(self.model.state_dict(), os.path.join(self.opt.save_dir, "model_best.pt"))


if __name__ == "__main__":
    Solver(parse_opts()).fit()
