import logging
from dataclasses import dataclass
from typing import Optional

import pandas as pd
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class CsvDataset(Dataset):
    def __init__(self, input_filename, transforms, img_key="filepath", caption_key="title", sep="\t",
                 tokenizer=None):
        logging.debug(f"Loading csv data from {input_filename}.")
        df = pd.read_csv(input_filename, sep=sep)
        self.images = df[img_key].tolist()
        self.captions = df[caption_key].tolist()
        self.transforms = transforms
        self.tokenize = tokenizer

    def __len__(self):
        return len(self.captions)

    def __getitem__(self, idx):
        images = self.transforms(Image.open(str(self.images[idx])).convert("RGB"))
        texts = self.tokenize([str(self.captions[idx])])[0]
        return images, texts


@dataclass
class DataInfo:
    dataloader: DataLoader
    sampler: Optional[DistributedSampler] = None

    def set_epoch(self, epoch):
        if self.sampler is not None and isinstance(self.sampler, DistributedSampler):
            self.sampler.set_epoch(epoch)


def get_csv_dataset(args, preprocess_fn, is_train, tokenizer=None):
    input_filename = args.train_data if is_train else args.val_data
    dataset = CsvDataset(input_filename, preprocess_fn, img_key=args.csv_img_key,
                         caption_key=args.csv_caption_key, sep=args.csv_separator, tokenizer=tokenizer)
    sampler = DistributedSampler(dataset) if args.distributed and is_train else None
    shuffle = is_train and sampler is None
    dataloader = DataLoader(dataset, batch_size=args.batch_size, shuffle=shuffle, num_workers=args.workers,
                            pin_memory=True, sampler=sampler, drop_last=is_train)
    dataloader.num_samples = len(dataset)
    dataloader.num_batches = len(dataloader)
    return DataInfo(dataloader, sampler)


def get_data(args, preprocess_fns, tokenizer=None):
    preprocess_train, preprocess_val = preprocess_fns
    data = {}
    if args.train_data:
        data["train"] = get_csv_dataset(args, preprocess_train, is_train=True, tokenizer=tokenizer)
    if args.val_data:
        data["val"] = get_csv_dataset(args, preprocess_val, is_train=False, tokenizer=tokenizer)
    return data
