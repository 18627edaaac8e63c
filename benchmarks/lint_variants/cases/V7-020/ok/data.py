import os
import tarfile

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import datasets, transforms

MNIST_TF = transforms.Compose([
    transforms.Resize(28),
    transforms.ToTensor(),
    transforms.Normalize((0.1307,), (0.3081,)),
])
MNISTM_TF = transforms.Compose([
    transforms.Resize(28),
    transforms.ToTensor(),
    transforms.Normalize((0.4582, 0.4623, 0.4085), (0.2386, 0.2239, 0.2444)),
])


class MNISTM(Dataset):
    """MNIST-M: MNIST digits blended over BSDS500 patches (Ganin et al.)."""

    def __init__(self, root, train=True, transform=None):
        self.root = os.path.join(root, "mnist_m")
        split = "mnist_m_train" if train else "mnist_m_test"
        if not os.path.isdir(os.path.join(self.root, split)):
            with tarfile.open(os.path.join(root, "mnist_m.tar.gz")) as tar:
                tar.extractall(root)
        with open(os.path.join(self.root, split + "_labels.txt")) as f:
            rows = [line.split() for line in f if line.strip()]
        self.files = [os.path.join(self.root, split, r[0]) for r in rows]
        self.labels = [int(r[1]) for r in rows]
        self.transform = transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = Image.open(self.files[i]).convert("RGB")
        if self.transform is not None:
            img = self.transform(img)
        return img, self.labels[i]


def get_loaders(root, batch_size, workers=4):
    src = datasets.MNIST(root, train=True, download=True, transform=MNIST_TF)
    tgt = MNISTM(root, train=True, transform=MNISTM_TF)
    tgt_test = MNISTM(root, train=False, transform=MNISTM_TF)
    mk = lambda ds, sh: DataLoader(ds, batch_size=batch_size, shuffle=sh, num_workers=workers, drop_last=sh,
                                   pin_memory=True)
    return mk(src, True), mk(tgt, True), mk(tgt_test, False)


@torch.no_grad()
def accuracy(feature_extractor, classifier, loader, device):
    feature_extractor.eval()
    classifier.eval()
    correct, total = 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        pred = classifier(feature_extractor(x)).argmax(1)
        correct += (pred == y).sum().item()
        total += y.numel()
    return correct / max(total, 1)
