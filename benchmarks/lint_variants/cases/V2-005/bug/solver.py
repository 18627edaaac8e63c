import os

import torch
import torch.nn as nn
from tqdm import tqdm

from networks import UNet


def dice_coeff(logits, target, eps=1e-6):
    pred = (torch.sigmoid(logits) > 0.5).float()
    inter = (pred * target).sum(dim=(1, 2, 3))
    union = pred.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return ((2 * inter + eps) / (union + eps)).mean()


class Solver:
    def __init__(self, config, train_loader, valid_loader):
        self.config = config
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.build_model()

    def build_model(self):
        self.unet = UNet(self.config.img_ch, self.config.output_ch).to(self.device)
        self.optimizer = torch.optim.Adam(self.unet.parameters(), self.config.lr,
                                          betas=(self.config.beta1, self.config.beta2))
        self.criterion = nn.BCEWithLogitsLoss()

    def train_epoch(self, epoch):
        self.unet.train()
        epoch_loss = 0.0
        for images, masks in tqdm(self.train_loader, desc=f"epoch {epoch}"):
            images = images.to(self.device)
            masks = masks.to(self.device)
            logits = self.unet(images)
            loss = self.criterion(logits, masks)
            loss.backward()
            self.optimizer.step()
            epoch_loss += loss.item()
        return epoch_loss / len(self.train_loader)

    @torch.no_grad()
    def validate(self):
        self.unet.eval()
        dice = 0.0
        for images, masks in self.valid_loader:
            images, masks = images.to(self.device), masks.to(self.device)
            dice += dice_coeff(self.unet(images), masks).item()
        return dice / len(self.valid_loader)

    def train(self):
        best = 0.0
        os.makedirs(self.config.model_path, exist_ok=True)
        for epoch in range(self.config.num_epochs):
            loss = self.train_epoch(epoch)
            dice = self.validate()
            print(f"Epoch {epoch + 1}/{self.config.num_epochs} loss={loss:.4f} dice={dice:.4f}")
            if dice > best:
                best = dice
                torch.save(self.unet.state_dict(), os.path.join(self.config.model_path, "unet_best.pkl"))
