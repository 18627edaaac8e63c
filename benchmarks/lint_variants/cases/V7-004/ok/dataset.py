import os
import os.path
from typing import List

import numpy as np
import torch
import torch.utils.data as data
import torchvision.transforms as T
from PIL import Image


class VideoRecord:
    def __init__(self, row: List[str]):
        self._data = row

    @property
    def path(self):
        return self._data[0]

    @property
    def num_frames(self):
        return int(self._data[1])

    @property
    def label(self):
        return int(self._data[2])


class TSNDataSet(data.Dataset):
    def __init__(self, root_path, list_file, num_segments=3, new_length=1, modality="RGB",
                 image_tmpl="img_{:05d}.jpg", transform=None, test_mode=False):
        self.root_path = root_path
        self.num_segments = num_segments
        self.new_length = new_length
        self.modality = modality
        self.image_tmpl = image_tmpl
        self.transform = transform
        self.test_mode = test_mode
        with open(list_file) as f:
            self.video_list = [VideoRecord(x.strip().split(" ")) for x in f]

    def _load_image(self, directory, idx):
        return [Image.open(os.path.join(self.root_path, directory, self.image_tmpl.format(idx))).convert("RGB")]

    def _get_test_indices(self, record):
        tick = (record.num_frames - self.new_length + 1) / float(self.num_segments)
        return np.array([int(tick / 2.0 + tick * x) for x in range(self.num_segments)]) + 1

    def _sample_indices(self, record):
        avg = (record.num_frames - self.new_length + 1) // self.num_segments
        if avg > 0:
            return np.multiply(list(range(self.num_segments)), avg) + np.random.randint(avg, size=self.num_segments) + 1
        return np.zeros((self.num_segments,), dtype=int) + 1

    def __getitem__(self, index):
        record = self.video_list[index]
        indices = self._get_test_indices(record) if self.test_mode else self._sample_indices(record)
        images = []
        for seg_ind in indices:
            p = int(seg_ind)
            for _ in range(self.new_length):
                images.extend(self._load_image(record.path, p))
                if p < record.num_frames:
                    p += 1
        return self.transform(images), record.label

    def __len__(self):
        return len(self.video_list)


class GroupOverSample:
    def __init__(self, crop_size, scale_size=None):
        self.crop_size = crop_size
        self.scale = T.Resize(scale_size) if scale_size is not None else None
        self.ten_crop = T.TenCrop(crop_size)

    def __call__(self, img_group):
        if self.scale is not None:
            img_group = [self.scale(img) for img in img_group]
        out = []
        for img in img_group:
            out.append(self.ten_crop(img))
        return [crops[i] for i in range(10) for crops in out]


class GroupToNormalizedTensor:
    def __init__(self, mean, std):
        self.normalize = T.Normalize(mean, std)

    def __call__(self, img_group):
        tensors = [self.normalize(T.functional.to_tensor(img)) for img in img_group]
        return torch.cat(tensors, dim=0)
