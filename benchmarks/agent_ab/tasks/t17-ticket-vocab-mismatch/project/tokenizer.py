"""Whitespace tokenizer and vocabulary."""
import json
import re
from collections import Counter

PAD, UNK = "<pad>", "<unk>"
_TOKEN_RE = re.compile(r"[a-z0-9#']+|[^\sa-z0-9]", re.IGNORECASE)


def tokenize(text, lowercase=True):
    if lowercase:
        text = text.lower()
    return _TOKEN_RE.findall(text)


class Vocab:
    def __init__(self, itos):
        self.itos = list(itos)
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.pad_id = self.stoi[PAD]
        self.unk_id = self.stoi[UNK]

    def __len__(self):
        return len(self.itos)

    @classmethod
    def build(cls, token_lists, max_size=None, min_freq=1):
        """Most frequent tokens first; ties keep first-seen order."""
        counts = Counter(t for toks in token_lists for t in toks)
        itos = [PAD, UNK]
        for tok, c in counts.most_common():
            if c < min_freq or (max_size and len(itos) >= max_size):
                break
            itos.append(tok)
        return cls(itos)

    def encode(self, tokens, max_len=None):
        ids = [self.stoi.get(t, self.unk_id) for t in tokens]
        return ids[:max_len] if max_len else ids

    def decode(self, ids):
        return [self.itos[i] for i in ids]

    def save(self, path):
        with open(path, "w") as f:
            json.dump({"itos": self.itos}, f)

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls(json.load(f)["itos"])
