"""Datasets and loaders for the ticket classifier."""
import logging
import os

import torch
from torch.utils.data import DataLoader, Dataset

import corpus
from tokenizer import Vocab, tokenize

log = logging.getLogger("train.data")


class TicketDataset(Dataset):
    def __init__(self, texts, labels, vocab, max_len=24, lowercase=True):
        self.labels = list(labels)
        self.vocab = vocab
        self.ids = [vocab.encode(tokenize(t, lowercase), max_len) for t in texts]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.ids[i], self.labels[i]

    def unk_rate(self):
        n = sum(len(x) for x in self.ids)
        return sum(t == self.vocab.unk_id for x in self.ids for t in x) / max(n, 1)


def collate(batch, pad_id=0):
    n = max(len(ids) for ids, _ in batch)
    x = torch.full((len(batch), n), pad_id, dtype=torch.long)
    for i, (ids, _) in enumerate(batch):
        x[i, :len(ids)] = torch.tensor(ids, dtype=torch.long)
    y = torch.tensor([lab for _, lab in batch], dtype=torch.long)
    return x, y


def load_split(split, cfg):
    d = cfg["data"]
    return corpus.generate(split, d[f"{split}_size"], seed=int(cfg["seed"]))


def load_or_build_vocab(path, texts, cfg):
    """Load the vocabulary saved with a run, or build it from ``texts``."""
    d = cfg["data"]
    if path and os.path.exists(path):
        return Vocab.load(path)
    log.debug("no vocabulary at %s; building one from %d texts", path, len(texts))
    return Vocab.build([tokenize(t, d["lowercase"]) for t in texts], d["vocab_size"], d["min_freq"])


def make_loader(texts, labels, vocab, cfg, shuffle=False, seed=0):
    d = cfg["data"]
    ds = TicketDataset(texts, labels, vocab, d["max_len"], d["lowercase"])
    g = torch.Generator().manual_seed(seed)
    return DataLoader(ds, batch_size=cfg["train"]["batch_size"], shuffle=shuffle, generator=g,
                      collate_fn=lambda b: collate(b, vocab.pad_id))
