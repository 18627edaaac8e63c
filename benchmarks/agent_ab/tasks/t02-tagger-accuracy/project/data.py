"""Synthetic tagging corpus.

Every token id has a base tag from a fixed lookup table; a token that follows a
"negator" (ids 1..num_negators) gets the next tag instead.  A tagger therefore
has to look at the previous token as well as the current one.
"""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

# Targets at padded positions are set to this value so that the loss skips them
# (it is CrossEntropyLoss's default ignore_index).
LABEL_PAD = -100


def tag_table(vocab_size, num_tags, seed=0):
    rng = np.random.default_rng(seed)
    table = rng.integers(num_tags, size=vocab_size)
    table[0] = 0
    return table


def generate(n, cfg, rng):
    d = cfg["data"]
    table = tag_table(d["vocab_size"], d["num_tags"])
    seqs, tags = [], []
    for _ in range(n):
        length = int(rng.integers(d["min_len"], d["max_len"] + 1))
        toks = rng.integers(1, d["vocab_size"], size=length)
        t = table[toks].copy()
        after_neg = np.zeros(length, dtype=bool)
        after_neg[1:] = toks[:-1] <= d["num_negators"]
        t[after_neg] = (t[after_neg] + 1) % d["num_tags"]
        seqs.append(toks.astype(np.int64))
        tags.append(t.astype(np.int64))
    return seqs, tags


class TaggingDataset(Dataset):
    def __init__(self, seqs, tags):
        self.seqs, self.tags = seqs, tags

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        return torch.from_numpy(self.seqs[i]), torch.from_numpy(self.tags[i])


class PadCollate:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, batch):
        seqs, tags = zip(*batch)
        n, t_max = len(seqs), max(len(s) for s in seqs)
        tokens = torch.full((n, t_max), self.pad_id, dtype=torch.long)
        targets = torch.full((n, t_max), LABEL_PAD, dtype=torch.long)
        for i, (s, t) in enumerate(zip(seqs, tags)):
            tokens[i, : len(s)] = s
            targets[i, : len(t)] = t
        return tokens, targets


def build_loaders(cfg):
    rng = np.random.default_rng(cfg["seed"])
    d = cfg["data"]
    train = TaggingDataset(*generate(d["train_size"], cfg, rng))
    val = TaggingDataset(*generate(d["val_size"], cfg, rng))
    collate = PadCollate(d["pad_id"])
    g = torch.Generator().manual_seed(cfg["seed"])
    train_loader = DataLoader(train, batch_size=cfg["train"]["batch_size"], shuffle=True,
                              generator=g, collate_fn=collate)
    val_loader = DataLoader(val, batch_size=128, shuffle=False, collate_fn=collate)
    return train_loader, val_loader
