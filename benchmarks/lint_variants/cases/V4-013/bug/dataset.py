import os

import pandas as pd
import torch
import torchvision.transforms as T
from PIL import Image
from torch.utils.data import Dataset


class MultiLabelImages(Dataset):
    def __init__(self, csv_path, image_dir, train=True, size=384):
        self.df = pd.read_csv(csv_path)
        self.image_dir = image_dir
        self.label_cols = [c for c in self.df.columns if c != "image_id"]
        self.num_classes = len(self.label_cols)
        aug = [T.RandomResizedCrop(size, scale=(0.6, 1.0)), T.RandomHorizontalFlip()] if train \
            else [T.Resize((size, size))]
        self.tf = T.Compose(aug + [T.ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])

    def __len__(self):
        return len(self.df)

    def __getitem__(self, i):
        row = self.df.iloc[i]
        img = Image.open(os.path.join(self.image_dir, row["image_id"] + ".jpg")).convert("RGB")
        y = torch.tensor(row[self.label_cols].values.astype("float32"))
        return self.tf(img), y
