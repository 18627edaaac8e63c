import glob
import math
import random
import time

import torch
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import Dataset
import torchvision.transforms.functional as TF


class Timer:
    def __init__(self):
        self.t0 = time.time()

    def toc(self):
        t = time.time() - self.t0
        self.t0 = time.time()
        return t


def calc_psnr(sr, hr, scale):
    diff = (sr - hr)[..., scale:-scale, scale:-scale]
    mse = diff.pow(2).mean().item()
    return -10 * math.log10(mse + 1e-10)


class SRDataset(Dataset):
    def __init__(self, root, scale, patch_size=96, train=True):
        self.files = sorted(glob.glob(f"{root}/*.png"))
        self.scale, self.patch, self.train = scale, patch_size, train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        hr = TF.to_tensor(Image.open(self.files[idx]).convert("RGB"))
        if self.train:
            _, h, w = hr.shape
            y, x = random.randint(0, h - self.patch), random.randint(0, w - self.patch)
            hr = hr[:, y:y + self.patch, x:x + self.patch]
            if random.random() < 0.5:
                hr = hr.flip(-1)
        else:
            _, h, w = hr.shape
            hr = hr[:, :h - h % self.scale, :w - w % self.scale]
        lr = F.interpolate(hr[None], scale_factor=1 / self.scale, mode="bicubic",
                           align_corners=False)[0].clamp(0, 1)
        return lr, hr
