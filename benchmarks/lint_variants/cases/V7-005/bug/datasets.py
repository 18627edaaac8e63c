import json
import os

import h5py
import torch
from torch.utils.data import Dataset


class CaptionDataset(Dataset):
    """Images stored in an HDF5 file, captions and lengths in JSON (prepared by create_input_files)."""

    def __init__(self, data_folder, data_name, split, transform=None):
        self.split = split
        assert self.split in {"TRAIN", "VAL", "TEST"}
        self.h = h5py.File(os.path.join(data_folder, self.split + "_IMAGES_" + data_name + ".hdf5"), "r")
        self.imgs = self.h["images"]
        self.cpi = self.h.attrs["captions_per_image"]
        with open(os.path.join(data_folder, self.split + "_CAPTIONS_" + data_name + ".json"), "r") as j:
            self.captions = json.load(j)
        with open(os.path.join(data_folder, self.split + "_CAPLENS_" + data_name + ".json"), "r") as j:
            self.caplens = json.load(j)
        self.transform = transform
        self.dataset_size = len(self.captions)

    def __getitem__(self, i):
        img = torch.FloatTensor(self.imgs[i // self.cpi] / 255.0)
        if self.transform is not None:
            img = self.transform(img)
        caption = torch.LongTensor(self.captions[i])
        caplen = torch.LongTensor([self.caplens[i]])
        if self.split == "TRAIN":
            return img, caption, caplen
        start = (i // self.cpi) * self.cpi
        all_captions = torch.LongTensor(self.captions[start:start + self.cpi])
        return img, caption, caplen, all_captions

    def __len__(self):
        return self.dataset_size


def collate_eval(batch):
    imgs, caps, caplens, allcaps = zip(*batch)
    return torch.stack(imgs), torch.stack(caps), torch.stack(caplens), torch.stack(allcaps)


def describe(data_folder, data_name):
    sizes = {}
    for split in ("TRAIN", "VAL", "TEST"):
        path = os.path.join(data_folder, split + "_CAPTIONS_" + data_name + ".json")
        if os.path.exists(path):
            with open(path) as j:
                sizes[split] = len(json.load(j))
    return sizes
