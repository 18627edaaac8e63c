import re
from collections import Counter

import torch
from torch.nn.utils.rnn import pad_sequence

PAD, UNK = "<pad>", "<unk>"


def tokenize(text):
    text = re.sub(r"<br\s*/?>", " ", text.lower())
    return re.findall(r"[a-z0-9']+|[!?.,]", text)


class Vocab:
    def __init__(self, texts, min_freq=2, max_size=50000):
        counter = Counter(tok for t in texts for tok in tokenize(t))
        self.itos = [PAD, UNK] + [w for w, c in counter.most_common(max_size) if c >= min_freq]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, text, max_len=400):
        ids = [self.stoi.get(tok, 1) for tok in tokenize(text)[:max_len]]
        return ids or [1]


def make_collate_fn(vocab):
    def collate_fn(batch):
        texts, labels = zip(*batch)
        seqs = [torch.tensor(vocab.encode(t)) for t in texts]
        seqs = [s if len(s) >= 5 else torch.cat([s, s.new_zeros(5 - len(s))]) for s in seqs]
        return pad_sequence(seqs, batch_first=True, padding_value=0), torch.tensor(labels)
    return collate_fn
