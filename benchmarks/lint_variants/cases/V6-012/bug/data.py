import os

import pandas as pd
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from torchvision import transforms

LABELS = ["Atelectasis", "Cardiomegaly", "Consolidation", "Edema", "Pleural Effusion"]


class ChestXrayDataset(Dataset):
    def __init__(self, csv_path, root, train=True, size=320):
        self.df = pd.read_csv(csv_path).fillna(0)
        self.root = root
        self.labels = self.df[LABELS].replace(-1, 1).values.astype("float32")
        aug = [transforms.RandomResizedCrop(size, scale=(0.8, 1.0)), transforms.RandomRotation(10)] if train \
            else [transforms.Resize((size, size))]
        self.tf = transforms.Compose(aug + [transforms.Grayscale(3), transforms.ToTensor(),
                                            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])

    def __len__(self):
        return len(self.df)

    def __getitem__(self, i):
        img = Image.open(os.path.join(self.root, self.df.iloc[i]["Path"])).convert("L")
        return self.tf(img), torch.from_numpy(self.labels[i])


def build_loaders(cfg, rank, world_size):
    train_ds = ChestXrayDataset(cfg.train_csv, cfg.root, train=True, size=cfg.size)
    val_ds = ChestXrayDataset(cfg.val_csv, cfg.root, train=False, size=cfg.size)
    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=cfg.batch_size, sampler=val_sampler,
                            num_workers=cfg.workers, pin_memory=True)
    return train_loader, val_loader, train_sampler
