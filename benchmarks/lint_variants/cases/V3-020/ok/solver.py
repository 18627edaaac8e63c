import os

import torch
import torch.nn.functional as F

from archs import SRResNet
from metrics import calculate_psnr


class SRSolver:
    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cuda" if opt["num_gpu"] > 0 else "cpu")
        self.net_g = SRResNet(**opt["network_g"]).to(self.device)
        self.optimizer_g = torch.optim.Adam(self.net_g.parameters(), lr=opt["train"]["lr"],
                                            betas=(0.9, 0.99))
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(
            self.optimizer_g, milestones=opt["train"]["milestones"], gamma=0.5)
        self.best_psnr = 0.0

    def optimize_parameters(self, lq, gt):
        self.optimizer_g.zero_grad()
        output = self.net_g(lq)
        l_pix = F.l1_loss(output, gt)
        l_pix.backward()
        self.optimizer_g.step()
        self.scheduler.step()
        return l_pix.item()

    @torch.no_grad()
    def validation(self, dataloader, current_iter):
        self.net_g.eval()
        psnr_sum = 0.0
        for val_data in dataloader:
            lq, gt = val_data["lq"].to(self.device), val_data["gt"].to(self.device)
            sr = self.net_g(lq).clamp(0, 1)
            psnr_sum += calculate_psnr(sr, gt, crop_border=self.opt["scale"])
        psnr = psnr_sum / len(dataloader)
        if psnr > self.best_psnr:
            self.best_psnr = psnr
            self.save("best")
        print(f"[iter {current_iter}] Validation PSNR: {psnr:.4f} dB (best {self.best_psnr:.4f})")
        self.net_g.train()

    def save(self, tag):
        os.makedirs(self.opt["path"]["models"], exist_ok=True)
        torch.save(self.net_g.state_dict(), os.path.join(self.opt["path"]["models"], f"net_g_{tag}.pth"))

    def train(self, train_loader, val_loader):
        self.net_g.train()
        current_iter = 0
        total_iter = self.opt["train"]["total_iter"]
        while current_iter < total_iter:
            for train_data in train_loader:
                current_iter += 1
                lq, gt = train_data["lq"].to(self.device), train_data["gt"].to(self.device)
                l_pix = self.optimize_parameters(lq, gt)
                if current_iter % self.opt["logger"]["print_freq"] == 0:
                    print(f"[iter {current_iter}] l_pix: {l_pix:.4e}")
                if current_iter % self.opt["val"]["val_freq"] == 0:
                    self.validation(val_loader, current_iter)
                if current_iter >= total_iter:
                    break
        self.save("latest")
