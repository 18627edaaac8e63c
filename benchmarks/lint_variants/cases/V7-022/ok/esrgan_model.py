import logging
import os
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

from archs import RRDBNet, VGGFeatureExtractor, VGGStyleDiscriminator

logger = logging.getLogger("esrgan")


class ESRGANModel:
    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        g, d, t = opt["network_g"], opt["network_d"], opt["train"]
        self.net_g = RRDBNet(nf=g["nf"], nb=g["nb"], scale=opt["scale"]).to(self.device)
        self.net_d = VGGStyleDiscriminator(nf=d["nf"], input_size=opt["datasets"]["train"]["gt_size"]).to(self.device)
        self.vgg = VGGFeatureExtractor().to(self.device)
        if opt["path"].get("pretrain_network_g"):
            self.net_g.load_state_dict(torch.load(opt["path"]["pretrain_network_g"], map_location=self.device))
            logger.info("loaded PSNR-oriented generator from %s", opt["path"]["pretrain_network_g"])
        self.optimizer_g = torch.optim.Adam(self.net_g.parameters(), lr=t["lr_g"], betas=(0.9, 0.99))
        self.optimizer_d = torch.optim.Adam(self.net_d.parameters(), lr=t["lr_d"], betas=(0.9, 0.99))
        self.schedulers = [torch.optim.lr_scheduler.MultiStepLR(o, milestones=t["milestones_epochs"], gamma=t["gamma"])
                           for o in (self.optimizer_g, self.optimizer_d)]
        self.w_pix, self.w_perc, self.w_gan = t["pixel_weight"], t["perceptual_weight"], t["gan_weight"]
        self.net_d_iters, self.net_d_init_iters = t.get("net_d_iters", 1), t.get("net_d_init_iters", 0)
        self.log_dict = OrderedDict()

    def feed_data(self, data):
        self.lq = data["lq"].to(self.device, non_blocking=True)
        self.gt = data["gt"].to(self.device, non_blocking=True)

    def optimize_parameters(self, current_iter):
        self.net_g.train()
        self.net_d.train()
        for p in self.net_d.parameters():
            p.requires_grad = False
        self.optimizer_g.zero_grad()
        self.output = self.net_g(self.lq)
        l_g_total = 0
        if current_iter % self.net_d_iters == 0 and current_iter > self.net_d_init_iters:
            l_pix = self.w_pix * F.l1_loss(self.output, self.gt)
            l_percep = self.w_perc * F.l1_loss(self.vgg(self.output), self.vgg(self.gt).detach())
            real_d_pred = self.net_d(self.gt).detach()
            fake_g_pred = self.net_d(self.output)
            l_g_real = F.binary_cross_entropy_with_logits(real_d_pred - fake_g_pred.mean(), torch.zeros_like(real_d_pred))
            l_g_fake = F.binary_cross_entropy_with_logits(fake_g_pred - real_d_pred.mean(), torch.ones_like(fake_g_pred))
            l_g_gan = self.w_gan * (l_g_real + l_g_fake) / 2
            l_g_total = l_pix + l_percep + l_g_gan
            l_g_total.backward()
            self.optimizer_g.step()
            self.log_dict.update(l_pix=l_pix.item(), l_percep=l_percep.item(), l_g_gan=l_g_gan.item())

        for p in self.net_d.parameters():
            p.requires_grad = True
        self.optimizer_d.zero_grad()
        fake_d_pred = self.net_d(self.output).detach()
        real_d_pred = self.net_d(self.gt)
        l_d_real = F.binary_cross_entropy_with_logits(real_d_pred - fake_d_pred.mean(), torch.ones_like(real_d_pred)) * 0.5
        l_d_real.backward()
        fake_d_pred = self.net_d(self.output.detach())
        l_d_fake = F.binary_cross_entropy_with_logits(fake_d_pred - real_d_pred.mean().detach(),
                                                      torch.zeros_like(fake_d_pred)) * 0.5
        l_d_fake.backward()
        self.optimizer_d.step()
        self.log_dict.update(l_d_real=l_d_real.item(), l_d_fake=l_d_fake.item())

    def update_learning_rate(self):
        for scheduler in self.schedulers:
            scheduler.step()

    def get_current_learning_rate(self):
        return [o.param_groups[0]["lr"] for o in (self.optimizer_g, self.optimizer_d)]

    @torch.no_grad()
    def test(self, lq):
        self.net_g.eval()
        out = self.net_g(lq.to(self.device)).clamp(0, 1)
        self.net_g.train()
        return out

    def save(self, epoch, current_iter):
        d = os.path.join(self.opt["path"]["experiments_root"], "models")
        os.makedirs(d, exist_ok=True)
        torch.save(self.net_g.state_dict(), os.path.join(d, f"net_g_{current_iter}.pth"))
        torch.save(self.net_d.state_dict(), os.path.join(d, f"net_d_{current_iter}.pth"))
        torch.save({"epoch": epoch, "iter": current_iter, "optimizers": [self.optimizer_g.state_dict(),
                    self.optimizer_d.state_dict()], "schedulers": [s.state_dict() for s in self.schedulers]},
                   os.path.join(d, f"state_{current_iter}.pth"))
