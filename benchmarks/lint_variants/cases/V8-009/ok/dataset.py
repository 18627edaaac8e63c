import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset

# per-band statistics of the training tiles (R, G, B, NIR), 16-bit reflectance
BAND_MEAN = np.array([1353.7, 1265.7, 1269.0, 2564.2], dtype=np.float32)
BAND_STD = np.array([65.5, 154.0, 187.9, 459.3], dtype=np.float32)
CLASSES = ["background", "building", "road", "water", "vegetation", "bare_soil"]


class SatelliteTiles(Dataset):
    """Tiles pre-cut to 256x256 and stored as .npy: images/<id>.npy (H, W, 4), masks/<id>.npy (H, W)."""

    def __init__(self, root, split="train", augment=False):
        self.images = sorted(glob.glob(os.path.join(root, split, "images", "*.npy")))
        self.masks = [p.replace(os.sep + "images" + os.sep, os.sep + "masks" + os.sep) for p in self.images]
        self.augment = augment

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = (np.load(self.images[idx]).astype(np.float32) - BAND_MEAN) / BAND_STD
        mask = np.load(self.masks[idx]).astype(np.int64)
        img = torch.from_numpy(img).permute(2, 0, 1).contiguous()
        mask = torch.from_numpy(mask)
        if self.augment:
            if torch.rand(1).item() < 0.5:
                img, mask = img.flip(-1), mask.flip(-1)
            if torch.rand(1).item() < 0.5:
                img, mask = img.flip(-2), mask.flip(-2)
            k = int(torch.randint(0, 4, (1,)))
            img, mask = torch.rot90(img, k, (-2, -1)), torch.rot90(mask, k, (-2, -1))
        return img, mask


def class_weights(dataset, num_classes=len(CLASSES)):
    counts = np.zeros(num_classes, dtype=np.float64)
    for p in dataset.masks:
        counts += np.bincount(np.load(p).ravel(), minlength=num_classes)[:num_classes]
    freq = counts / counts.sum()
    return torch.tensor(1.0 / np.log(1.02 + freq), dtype=torch.float32)
