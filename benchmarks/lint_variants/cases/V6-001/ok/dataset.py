import cv2
import torch
from torch.utils.data import Dataset
import albumentations as A
from albumentations.pytorch import ToTensorV2

TRAIN_PATH = "../input/train_images"


class TrainDataset(Dataset):
    def __init__(self, df, transform=None):
        self.df = df
        self.file_names = df["image_id"].values
        self.labels = df["label"].values
        self.transform = transform

    def __len__(self):
        return len(self.df)

    def __getitem__(self, idx):
        image = cv2.imread(f"{TRAIN_PATH}/{self.file_names[idx]}")
        image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
        if self.transform:
            image = self.transform(image=image)["image"]
        return image, torch.tensor(self.labels[idx]).long()


def get_transforms(data, size):
    if data == "train":
        return A.Compose([A.RandomResizedCrop(size, size), A.HorizontalFlip(p=0.5),
                          A.Normalize(), ToTensorV2()])
    return A.Compose([A.Resize(size, size), A.Normalize(), ToTensorV2()])
