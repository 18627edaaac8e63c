"""Synthetic "keyword" corpus and the dataset / loader plumbing around it.

Each example is a sequence of token ids.  Tokens 1..num_classes are the
keywords; the label of a sequence is the keyword that occurs most often in
it.  All other ids are filler drawn uniformly.  Id 0 is reserved for padding.
"""
from dataclasses import dataclass

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from batching import LengthBucketSampler, length_sorted, pad_batch

PAD_ID = 0


@dataclass
class Record:
    tokens: list
    label: int


def generate_records(n, vocab_size, num_classes, min_len, max_len, rng):
    """Draw `n` labelled sequences; the majority keyword is the label."""
    records = []
    filler = np.arange(num_classes + 1, vocab_size)
    for _ in range(n):
        length = int(rng.integers(min_len, max_len + 1))
        label = int(rng.integers(num_classes))
        n_kw = max(3, length // 3)
        # the label keyword gets a strict majority among the keywords
        counts = rng.multinomial(n_kw - (n_kw // 2 + 1), np.ones(num_classes) / num_classes)
        counts[label] += n_kw // 2 + 1
        if counts[label] <= np.delete(counts, label).max():
            counts[label] = np.delete(counts, label).max() + 1
        kws = np.repeat(np.arange(1, num_classes + 1), counts)
        fill = rng.choice(filler, size=max(0, length - len(kws)))
        seq = np.concatenate([kws, fill])
        rng.shuffle(seq)
        records.append(Record(tokens=seq.astype(np.int64).tolist(), label=label))
    return records


class KeywordDataset(Dataset):
    def __init__(self, sequences, labels):
        assert len(sequences) == len(labels)
        self.sequences = sequences
        self.labels = labels

    def __len__(self):
        return len(self.sequences)

    def __getitem__(self, idx):
        return torch.tensor(self.sequences[idx]), int(self.labels[idx])


def build_split(cfg, n, rng, sort_by_length):
    d = cfg["data"]
    records = generate_records(n, d["vocab_size"], d["num_classes"],
                               d["min_len"], d["max_len"], rng)
    if sort_by_length:
        # reorder whole records so that each sequence keeps its own label
        records = length_sorted(records, key=lambda r: len(r.tokens))
    sequences = [r.tokens for r in records]
    labels = np.array([r.label for r in records], dtype=np.int64)
    return KeywordDataset(sequences, labels)


def build_datasets(cfg):
    rng = np.random.default_rng(cfg["seed"])
    d = cfg["data"]
    train = build_split(cfg, d["train_size"], rng, d.get("sort_by_length", False))
    val = build_split(cfg, d["val_size"], rng, False)
    return train, val


def collate(batch):
    seqs, labels = zip(*batch)
    tokens, lengths = pad_batch(seqs, PAD_ID)
    return tokens, lengths, torch.tensor(labels)


def build_loaders(cfg):
    train, val = build_datasets(cfg)
    bs = cfg["train"]["batch_size"]
    g = torch.Generator().manual_seed(cfg["seed"])
    if cfg["data"].get("sort_by_length", False):
        sampler = LengthBucketSampler(len(train), bs, generator=g)
        train_loader = DataLoader(train, batch_sampler=sampler, collate_fn=collate)
    else:
        train_loader = DataLoader(train, batch_size=bs, shuffle=True,
                                  generator=g, collate_fn=collate)
    val_loader = DataLoader(val, batch_size=256, shuffle=False, collate_fn=collate)
    return train_loader, val_loader
