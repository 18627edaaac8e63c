import re
from collections import Counter

import torch
from torch.utils.data import Dataset
from torch.nn.utils.rnn import pad_sequence


def tokenize(text):
    text = re.sub(r"<br\s*/?>", " ", text.lower())
    return re.findall(r"[a-z0-9']+", text)


def build_vocab(texts, max_size=25000):
    counter = Counter(tok for t in texts for tok in tokenize(t))
    itos = ["<pad>", "<unk>"] + [w for w, _ in counter.most_common(max_size)]
    return {w: i for i, w in enumerate(itos)}


class ReviewDataset(Dataset):
    def __init__(self, texts, labels, vocab, max_len=400):
        self.data = [torch.tensor([vocab.get(w, 1) for w in tokenize(t)][:max_len] or [1]) for t in texts]
        self.labels = labels

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return self.data[idx], self.labels[idx]


def collate_batch(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True), lengths, torch.tensor(labels)
