import os

from PIL import Image
from torch.utils.data import Dataset
import torchvision.transforms.functional as TF
import random


class SegmentationFolder(Dataset):
    def __init__(self, root, image_size=224, augment=False):
        self.image_dir = os.path.join(root, "images")
        self.mask_dir = os.path.join(root, "masks")
        self.names = sorted(os.listdir(self.image_dir))
        self.image_size = image_size
        self.augment = augment

    def __len__(self):
        return len(self.names)

    def __getitem__(self, idx):
        name = self.names[idx]
        image = Image.open(os.path.join(self.image_dir, name)).convert("RGB")
        mask = Image.open(os.path.join(self.mask_dir, name)).convert("L")
        image = TF.resize(image, [self.image_size, self.image_size])
        mask = TF.resize(mask, [self.image_size, self.image_size], interpolation=TF.InterpolationMode.NEAREST)
        if self.augment and random.random() > 0.5:
            image, mask = TF.hflip(image), TF.hflip(mask)
        return TF.to_tensor(image), (TF.to_tensor(mask) > 0.5).float()
