from collections import Counter

import torch
from torch.utils.data import Dataset


def read_conll(path):
    sentences, words, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("-DOCSTART-"):
                if words:
                    sentences.append((words, tags))
                    words, tags = [], []
                continue
            parts = line.split()
            words.append(parts[0])
            tags.append(parts[-1])
    if words:
        sentences.append((words, tags))
    return sentences


class Vocabulary:
    def __init__(self, items, min_count=1, specials=("<pad>", "<unk>")):
        counts = Counter(items)
        self.itos = list(specials) + sorted(k for k, c in counts.items() if c >= min_count and k not in specials)
        self.stoi = {s: i for i, s in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def __getitem__(self, item):
        return self.stoi.get(item, 1)


class CoNLLDataset(Dataset):
    def __init__(self, sentences, word_vocab, char_vocab, tag_vocab):
        self.sentences = sentences
        self.wv, self.cv, self.tv = word_vocab, char_vocab, tag_vocab

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, idx):
        words, tags = self.sentences[idx]
        return ([self.wv[w.lower()] for w in words], [[self.cv[c] for c in w] for w in words],
                [self.tv.stoi[t] for t in tags])


def collate(batch):
    lengths = torch.tensor([len(w) for w, _, _ in batch])
    t, wl = int(lengths.max()), max(len(c) for _, cs, _ in batch for c in cs)
    words = torch.zeros(len(batch), t, dtype=torch.long)
    chars = torch.zeros(len(batch), t, wl, dtype=torch.long)
    tags = torch.zeros(len(batch), t, dtype=torch.long)
    for i, (w, cs, tg) in enumerate(batch):
        words[i, : len(w)] = torch.tensor(w)
        tags[i, : len(tg)] = torch.tensor(tg)
        for j, c in enumerate(cs):
            chars[i, j, : len(c)] = torch.tensor(c)
    mask = torch.arange(t)[None, :] < lengths[:, None]
    return words, chars, lengths, tags, mask
