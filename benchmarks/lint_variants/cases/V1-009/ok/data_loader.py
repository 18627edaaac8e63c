import os
import random

from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms as T
import torchvision.transforms.functional as TF


class ImageFolderSeg(Dataset):
    def __init__(self, root, image_size=224, mode="train"):
        self.root = root
        self.gt_root = root.rstrip("/") + "_GT/"
        self.image_paths = sorted(os.path.join(root, f) for f in os.listdir(root))
        self.image_size = image_size
        self.mode = mode

    def __getitem__(self, index):
        path = self.image_paths[index]
        name = os.path.splitext(os.path.basename(path))[0]
        image = Image.open(path).convert("RGB")
        gt = Image.open(os.path.join(self.gt_root, name + "_segmentation.png"))
        image = TF.resize(image, [self.image_size, self.image_size])
        gt = TF.resize(gt, [self.image_size, self.image_size], interpolation=T.InterpolationMode.NEAREST)
        if self.mode == "train" and random.random() < 0.5:
            image, gt = TF.hflip(image), TF.hflip(gt)
        image = TF.normalize(TF.to_tensor(image), [0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
        return image, (TF.to_tensor(gt) > 0.5).float()

    def __len__(self):
        return len(self.image_paths)
