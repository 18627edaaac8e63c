"""Batching helpers: length bucketing and padding.

Sorting the corpus by length once and then drawing contiguous chunks keeps
the sequences inside a batch of similar length, which cuts the amount of
padding (and wasted compute) per batch considerably.
"""
import torch
from torch.utils.data import Sampler


def length_sorted(items, key=len):
    """Return the items ordered by length (shortest first, stable)."""
    return sorted(items, key=key)


class LengthBucketSampler(Sampler):
    """Yields batches of consecutive indices of a length-sorted dataset.

    Batches are formed from contiguous index ranges (similar lengths) and
    the order of the batches is shuffled every epoch.
    """

    def __init__(self, n_items, batch_size, generator=None):
        self.n_items = n_items
        self.batch_size = batch_size
        self.generator = generator

    def __iter__(self):
        starts = list(range(0, self.n_items, self.batch_size))
        perm = torch.randperm(len(starts), generator=self.generator).tolist()
        for i in perm:
            s = starts[i]
            yield list(range(s, min(s + self.batch_size, self.n_items)))

    def __len__(self):
        return (self.n_items + self.batch_size - 1) // self.batch_size


def pad_batch(seqs, pad_id):
    lengths = torch.tensor([len(s) for s in seqs])
    out = torch.full((len(seqs), int(lengths.max())), pad_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = s
    return out, lengths
