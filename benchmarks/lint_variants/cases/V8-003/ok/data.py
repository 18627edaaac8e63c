import os

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import datasets, transforms

IMG_TF = transforms.Compose([
    transforms.Resize(28),
    transforms.ToTensor(),
    transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
])


class MNISTM(Dataset):
    """MNIST-M stored as <root>/mnist_m_{split}/ with a labels file of 'name label' lines."""

    def __init__(self, root, split="train", transform=IMG_TF):
        self.dir = os.path.join(root, f"mnist_m_{split}")
        with open(os.path.join(root, f"mnist_m_{split}_labels.txt")) as f:
            rows = [line.split() for line in f if line.strip()]
        self.items = [(name, int(label)) for name, label in rows]
        self.transform = transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        name, label = self.items[idx]
        img = Image.open(os.path.join(self.dir, name)).convert("RGB")
        return self.transform(img), label


def mnist_rgb(root, train=True):
    tf = transforms.Compose([transforms.Grayscale(3), IMG_TF])
    return datasets.MNIST(root, train=train, download=True, transform=tf)


def build_loaders(root, batch_size, workers=4):
    src = DataLoader(mnist_rgb(root, True), batch_size, shuffle=True, num_workers=workers, drop_last=True)
    tgt = DataLoader(MNISTM(root, "train"), batch_size, shuffle=True, num_workers=workers, drop_last=True)
    tgt_test = DataLoader(MNISTM(root, "test"), 256, shuffle=False, num_workers=workers)
    return src, tgt, tgt_test


def domain_labels(n_src, n_tgt, device):
    return torch.cat([torch.zeros(n_src, dtype=torch.long), torch.ones(n_tgt, dtype=torch.long)]).to(device)
