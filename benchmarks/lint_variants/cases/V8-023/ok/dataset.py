import os

import torch
from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms


class VideoRecord:
    def __init__(self, row):
        self.path, self.num_frames, self.label = row[0], int(row[1]), int(row[2])


class TSNDataSet(Dataset):
    """Frame folders listed as '<dir> <num_frames> <label>' (UCF101 / Kinetics rawframes layout)."""

    def __init__(self, root, list_file, num_segments=3, new_length=1, image_tmpl="img_{:05d}.jpg",
                 transform=None, random_shift=True, test_mode=False):
        self.root, self.num_segments, self.new_length = root, num_segments, new_length
        self.image_tmpl = image_tmpl
        self.transform = transform
        self.random_shift, self.test_mode = random_shift, test_mode
        with open(list_file) as f:
            self.video_list = [VideoRecord(line.strip().split(" ")) for line in f if line.strip()]

    def _sample_indices(self, record):
        average_duration = (record.num_frames - self.new_length + 1) // self.num_segments
        if average_duration > 0:
            offsets = torch.arange(self.num_segments) * average_duration
            return offsets + torch.randint(average_duration, (self.num_segments,)) + 1
        return torch.ones(self.num_segments, dtype=torch.long)

    def _get_val_indices(self, record):
        tick = (record.num_frames - self.new_length + 1) / float(self.num_segments)
        return torch.tensor([int(tick / 2.0 + tick * x) + 1 for x in range(self.num_segments)])

    def __getitem__(self, index):
        record = self.video_list[index]
        if self.random_shift and not self.test_mode:
            indices = self._sample_indices(record)
        else:
            indices = self._get_val_indices(record)
        frames = []
        for idx in indices.tolist():
            img = Image.open(os.path.join(self.root, record.path, self.image_tmpl.format(idx))).convert("RGB")
            frames.append(img)
        return torch.stack([self.transform(f) for f in frames]), record.label

    def __len__(self):
        return len(self.video_list)


def train_transform(size=224, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
    return transforms.Compose([transforms.RandomResizedCrop(size, scale=(0.4, 1.0)), transforms.RandomHorizontalFlip(),
                               transforms.ToTensor(), transforms.Normalize(mean, std)])


def val_transform(size=224, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
    return transforms.Compose([transforms.Resize(256), transforms.CenterCrop(size), transforms.ToTensor(),
                               transforms.Normalize(mean, std)])
