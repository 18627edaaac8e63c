import csv
import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset, Sampler
from torchvision import transforms


class MiniImageNet(Dataset):
    def __init__(self, root, split):
        with open(os.path.join(root, f"{split}.csv")) as f:
            rows = list(csv.reader(f))[1:]
        self.root = os.path.join(root, "images")
        self.files = [r[0] for r in rows]
        classes = sorted({r[1] for r in rows})
        self.class_to_idx = {c: i for i, c in enumerate(classes)}
        self.labels = [self.class_to_idx[r[1]] for r in rows]
        self.transform = transforms.Compose([
            transforms.Resize(84), transforms.CenterCrop(84), transforms.ToTensor(),
            transforms.Normalize([0.472, 0.453, 0.410], [0.277, 0.268, 0.285]),
        ])

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        img = Image.open(os.path.join(self.root, self.files[idx])).convert("RGB")
        return self.transform(img), self.labels[idx]


class EpisodicBatchSampler(Sampler):
    """Yields n_way * (n_shot + n_query) indices per episode, grouped class by class."""

    def __init__(self, labels, n_way, n_shot, n_query, n_episodes, seed=None):
        self.labels = np.asarray(labels)
        self.classes = np.unique(self.labels)
        self.by_class = {c: np.where(self.labels == c)[0] for c in self.classes}
        self.n_way, self.n_shot, self.n_query = n_way, n_shot, n_query
        self.n_episodes = n_episodes
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return self.n_episodes

    def __iter__(self):
        for _ in range(self.n_episodes):
            batch = []
            for c in self.rng.choice(self.classes, self.n_way, replace=False):
                batch.extend(self.rng.choice(self.by_class[c], self.n_shot + self.n_query, replace=False).tolist())
            yield batch


def split_episode(images, n_way, n_shot, n_query):
    images = images.view(n_way, n_shot + n_query, *images.shape[1:])
    support = images[:, :n_shot].reshape(n_way * n_shot, *images.shape[2:])
    query = images[:, n_shot:].reshape(n_way * n_query, *images.shape[2:])
    query_labels = torch.arange(n_way).repeat_interleave(n_query)
    return support, query, query_labels
