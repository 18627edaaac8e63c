import csv

import torch
from torch.utils.data import Dataset


class UnsupervisedWiki(Dataset):
    """One sentence per line (wiki1m_for_simcse.txt); dropout noise makes the positive pair."""

    def __init__(self, path, max_lines=None):
        with open(path, encoding="utf-8") as f:
            self.sentences = [line.strip() for line in f if line.strip()]
        if max_lines:
            self.sentences = self.sentences[:max_lines]

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, idx):
        return self.sentences[idx]


class PairCollator:
    def __init__(self, tokenizer, max_len=32):
        self.tokenizer = tokenizer
        self.max_len = max_len

    def __call__(self, sentences):
        doubled = [s for s in sentences for _ in range(2)]
        enc = self.tokenizer(doubled, padding=True, truncation=True, max_length=self.max_len, return_tensors="pt")
        bs = len(sentences)
        return {k: v.view(bs, 2, -1) for k, v in enc.items()}


def load_stsb(path):
    s1, s2, scores = [], [], []
    with open(path, encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        for row in reader:
            if len(row) < 7:
                continue
            scores.append(float(row[4]))
            s1.append(row[5])
            s2.append(row[6])
    return s1, s2, torch.tensor(scores)


def spearman(x, y):
    def rank(v):
        r = torch.empty_like(v)
        r[v.argsort()] = torch.arange(len(v), dtype=v.dtype)
        return r
    rx, ry = rank(x.float()), rank(y.float())
    rx, ry = rx - rx.mean(), ry - ry.mean()
    return float((rx * ry).sum() / (rx.norm() * ry.norm()))
