import json
import os

import h5py
import torch
from torch.utils.data import Dataset


class CaptionDataset(Dataset):
    """Reads the HDF5 image file and JSON caption files written by create_input_files.py."""

    def __init__(self, data_folder, data_name, split, transform=None):
        assert split in {"TRAIN", "VAL", "TEST"}
        self.split = split
        self.h = h5py.File(os.path.join(data_folder, f"{split}_IMAGES_{data_name}.hdf5"), "r")
        self.imgs = self.h["images"]
        self.cpi = self.h.attrs["captions_per_image"]
        with open(os.path.join(data_folder, f"{split}_CAPTIONS_{data_name}.json")) as j:
            self.captions = json.load(j)
        with open(os.path.join(data_folder, f"{split}_CAPLENS_{data_name}.json")) as j:
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


def load_word_map(data_folder, data_name):
    with open(os.path.join(data_folder, f"WORDMAP_{data_name}.json")) as j:
        return json.load(j)
