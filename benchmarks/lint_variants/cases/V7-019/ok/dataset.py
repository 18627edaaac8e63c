import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset

S3DIS_CLASSES = ["ceiling", "floor", "wall", "beam", "column", "window", "door", "table", "chair", "sofa",
                 "bookcase", "board", "clutter"]


class S3DISBlocks(Dataset):
    """Room point clouds (x, y, z, r, g, b, label) cut into 1m x 1m blocks of num_points points."""

    def __init__(self, root, split="train", test_area=5, num_points=4096, block_size=1.0, sample_rate=1.0,
                 augment=False):
        rooms = sorted(glob.glob(os.path.join(root, "*.npy")))
        area = f"Area_{test_area}"
        rooms = [r for r in rooms if (area in r) == (split != "train")]
        self.num_points = num_points
        self.block_size = block_size
        self.augment = augment
        self.rooms, self.room_coord_max, self.room_idxs = [], [], []
        for i, path in enumerate(rooms):
            data = np.load(path)
            self.rooms.append(data)
            self.room_coord_max.append(data[:, :3].max(0))
            n_blocks = int(round(len(data) * sample_rate / num_points))
            self.room_idxs.extend([i] * max(n_blocks, 1))
        labels = np.concatenate([r[:, 6] for r in self.rooms]).astype(np.int64)
        counts = np.bincount(labels, minlength=len(S3DIS_CLASSES)).astype(np.float32)
        freq = counts / counts.sum()
        self.label_weights = np.power(freq.max() / np.maximum(freq, 1e-6), 1 / 3.0)

    def __len__(self):
        return len(self.room_idxs)

    def __getitem__(self, idx):
        room = self.rooms[self.room_idxs[idx]]
        points, labels = room[:, :6], room[:, 6].astype(np.int64)
        while True:
            center = points[np.random.choice(len(points))][:3]
            lo = center - [self.block_size / 2, self.block_size / 2, 0]
            hi = center + [self.block_size / 2, self.block_size / 2, 0]
            sel = np.where((points[:, 0] >= lo[0]) & (points[:, 0] <= hi[0]) &
                           (points[:, 1] >= lo[1]) & (points[:, 1] <= hi[1]))[0]
            if sel.size > 1024:
                break
        choice = np.random.choice(sel, self.num_points, replace=sel.size < self.num_points)
        pts = points[choice]
        out = np.zeros((self.num_points, 9), dtype=np.float32)
        out[:, 6:9] = pts[:, :3] / self.room_coord_max[self.room_idxs[idx]]
        pts[:, 0] -= center[0]
        pts[:, 1] -= center[1]
        pts[:, 3:6] /= 255.0
        out[:, 0:6] = pts
        if self.augment:
            theta = np.random.uniform(0, 2 * np.pi)
            rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]], dtype=np.float32)
            out[:, :2] = out[:, :2] @ rot
            out[:, :3] += np.random.normal(0, 0.01, size=(self.num_points, 3)).astype(np.float32)
        return torch.from_numpy(out).T.contiguous(), torch.from_numpy(labels[choice])
