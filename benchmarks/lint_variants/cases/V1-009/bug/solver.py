import os

import torch
import torch.nn as nn

from unet import UNet


def dice_coef(logits, target, eps=1e-6):
    pred = (torch.sigmoid(logits) > 0.5).float()
    inter = (pred * target).sum(dim=(1, 2, 3))
    union = pred.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return ((2 * inter + eps) / (union + eps)).mean().item()


class Solver(object):
    def __init__(self, config, train_loader, valid_loader):
        self.config = config
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.unet = UNet(img_ch=config.img_ch, output_ch=config.output_ch).to(self.device)
        self.criterion = nn.BCEWithLogitsLoss()
        self.optimizer = torch.optim.Adam(self.unet.parameters(), config.lr, (config.beta1, config.beta2))
        self.best_dice = 0.0

    def train_epoch(self, epoch):
        self.unet.train(True)
        epoch_loss = 0.0
        for images, gt in self.train_loader:
            images, gt = images.to(self.device), gt.to(self.device)
            sr = self.unet(images)
            loss = self.criterion(sr, gt)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            epoch_loss += loss.item()
        return epoch_loss / len(self.train_loader)

    def validate(self, epoch):
        dice, n = 0.0, 0
        with torch.no_grad():
            for images, gt in self.valid_loader:
                images, gt = images.to(self.device), gt.to(self.device)
                sr = self.unet(images)
                dice += dice_coef(sr, gt) * images.size(0)
                n += images.size(0)
        return dice / n

    def train(self):
        for epoch in range(self.config.num_epochs):
            loss = self.train_epoch(epoch)
            dice = self.validate(epoch)
            print(f"Epoch [{epoch + 1}/{self.config.num_epochs}] Loss: {loss:.4f} Valid DC: {dice:.4f}")
            if dice > self.best_dice:
                self.best_dice = dice
                torch.save(self.unet.state_dict(), os.path.join(self.config.model_path, "unet_best.pkl"))
