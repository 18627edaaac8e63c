import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class TokenChunks(Dataset):
    def __init__(self, path, block_size):
        self.data = np.memmap(path, dtype=np.uint16, mode="r")
        self.block_size = block_size

    def __len__(self):
        return (len(self.data) - 1) // self.block_size

    def __getitem__(self, idx):
        start = idx * self.block_size
        chunk = torch.from_numpy(self.data[start:start + self.block_size + 1].astype(np.int64))
        return chunk[:-1], chunk[1:]


def get_dataloader(path, block_size, batch_size, distributed, train=True, num_workers=4):
    ds = TokenChunks(path, block_size)
    sampler = DistributedSampler(ds, shuffle=train) if distributed else None
    return DataLoader(ds, batch_size=batch_size, sampler=sampler,
                      shuffle=(sampler is None and train), num_workers=num_workers,
                      pin_memory=True, drop_last=train)
