"""Token and label vocabularies shared by training and evaluation."""
from __future__ import annotations

from collections import Counter
from typing import Dict, Iterable, List

import torch

PAD, UNK = "<pad>", "<unk>"


class Vocab:
    def __init__(self, itos: List[str]):
        self.itos = list(itos)
        self.stoi = {tok: i for i, tok in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, tokens: Iterable[str]) -> List[int]:
        unk = self.stoi[UNK]
        return [self.stoi.get(t, unk) for t in tokens]

    def state_dict(self) -> Dict:
        return {"itos": self.itos}

    @classmethod
    def from_state_dict(cls, state: Dict) -> "Vocab":
        return cls(state["itos"])


def build_vocab(tickets, min_count: int = 1) -> Vocab:
    counts = Counter(tok for t in tickets for tok in t.tokens)
    words = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    return Vocab([PAD, UNK] + words)


def build_label_map(tickets) -> Dict[str, int]:
    """Category -> class index, most frequent category first (index 0 doubles as the
    fallback route for tickets the model is unsure about)."""
    counts = Counter(t.category for t in tickets)
    categories = {t.category for t in tickets}
    ordered = sorted(categories, key=lambda c: -counts[c])
    return {name: idx for idx, name in enumerate(ordered)}


def encode_batch(tickets, vocab: Vocab, label_map: Dict[str, int]):
    ids = torch.tensor([vocab.encode(t.tokens) for t in tickets], dtype=torch.long)
    labels = torch.tensor([label_map[t.category] for t in tickets], dtype=torch.long)
    return ids, labels
