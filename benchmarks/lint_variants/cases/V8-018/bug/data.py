from collections import Counter

import torch
from torch.utils.data import Dataset

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]


class Vocab:
    def __init__(self, counter, min_freq=2, max_size=30000):
        words = [w for w, c in counter.most_common(max_size) if c >= min_freq]
        self.itos = SPECIALS + words
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, tokens):
        unk = self.stoi["<unk>"]
        return [self.stoi.get(t, unk) for t in tokens]

    def decode(self, ids):
        words = []
        for i in ids:
            if i == 2:
                break
            if i >= 3:
                words.append(self.itos[i])
        return " ".join(words)


def read_parallel(src_path, tgt_path, max_len=80):
    with open(src_path, encoding="utf-8") as fs, open(tgt_path, encoding="utf-8") as ft:
        pairs = [(s.lower().split(), t.lower().split()) for s, t in zip(fs, ft)]
    return [(s, t) for s, t in pairs if 0 < len(s) <= max_len and 0 < len(t) <= max_len]


def build_vocabs(pairs, min_freq=2):
    return Vocab(Counter(w for s, _ in pairs for w in s), min_freq), Vocab(Counter(w for _, t in pairs for w in t), min_freq)


class ParallelDataset(Dataset):
    def __init__(self, pairs, src_vocab, tgt_vocab):
        self.data = [(src_vocab.encode(s) + [2], [1] + tgt_vocab.encode(t) + [2]) for s, t in pairs]
        self.refs = [" ".join(t) for _, t in pairs]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def collate(batch, pad_idx=0):
    src, tgt = zip(*batch)
    src_lengths = torch.tensor([len(s) for s in src])
    pad = lambda seqs: torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=True,
                                                       padding_value=pad_idx)
    return pad(src), src_lengths, pad(tgt)
