import json
import os

import numpy as np
import torch
from torch.utils.data import Dataset

SEG_CLASSES = {"Airplane": [0, 1, 2, 3], "Bag": [4, 5], "Cap": [6, 7], "Car": [8, 9, 10, 11],
               "Chair": [12, 13, 14, 15], "Earphone": [16, 17, 18], "Guitar": [19, 20, 21], "Knife": [22, 23],
               "Lamp": [24, 25, 26, 27], "Laptop": [28, 29], "Motorbike": [30, 31, 32, 33, 34, 35],
               "Mug": [36, 37], "Pistol": [38, 39, 40], "Rocket": [41, 42, 43], "Skateboard": [44, 45, 46],
               "Table": [47, 48, 49]}


def pc_normalize(pc):
    pc = pc - pc.mean(axis=0)
    return pc / np.max(np.sqrt((pc ** 2).sum(axis=1)))


class ShapeNetPart(Dataset):
    def __init__(self, root, split="train", npoints=2048, augment=True):
        self.root, self.npoints = root, npoints
        self.augment = augment and split == "train"
        with open(os.path.join(root, "synsetoffset2category.txt")) as f:
            self.cat = dict(line.strip().split() for line in f)
        self.classes = {name: i for i, name in enumerate(sorted(self.cat))}
        syn_to_name = {v: k for k, v in self.cat.items()}
        with open(os.path.join(root, "train_test_split", f"shuffled_{split}_file_list.json")) as f:
            ids = json.load(f)
        self.items = []
        for entry in ids:
            _, syn, token = entry.split("/")
            self.items.append((syn_to_name[syn], os.path.join(root, syn, token + ".txt")))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        name, path = self.items[index]
        data = np.loadtxt(path).astype(np.float32)
        points, seg = pc_normalize(data[:, :3]), data[:, -1].astype(np.int64)
        if self.augment:
            choice = np.random.choice(len(seg), self.npoints, replace=True)
        else:
            choice = np.arange(self.npoints) % len(seg)
        points, seg = points[choice], seg[choice]
        if self.augment:
            points = points * np.random.uniform(0.8, 1.25, size=(1, 3)).astype(np.float32)
            points = points + np.clip(0.01 * np.random.randn(*points.shape), -0.05, 0.05).astype(np.float32)
        return torch.from_numpy(points), torch.tensor(self.classes[name]), torch.from_numpy(seg)
