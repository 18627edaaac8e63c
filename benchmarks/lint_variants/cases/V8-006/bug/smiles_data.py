import torch
from torch.utils.data import Dataset

PAD, SOS, EOS = "_", "^", "$"


class SmilesVocab:
    def __init__(self, smiles_list):
        chars = sorted({c for s in smiles_list for c in s})
        self.itos = [PAD, SOS, EOS] + chars
        self.stoi = {c: i for i, c in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    @property
    def pad_idx(self):
        return self.stoi[PAD]

    def encode(self, smiles, max_len):
        ids = [self.stoi[SOS]] + [self.stoi[c] for c in smiles] + [self.stoi[EOS]]
        ids = ids[:max_len]
        return ids + [self.pad_idx] * (max_len - len(ids))

    def decode(self, ids):
        out = []
        for i in ids:
            c = self.itos[i]
            if c == EOS:
                break
            if c not in (PAD, SOS):
                out.append(c)
        return "".join(out)


class SmilesDataset(Dataset):
    def __init__(self, path, vocab=None, max_len=120):
        with open(path) as f:
            self.smiles = [line.split()[0] for line in f if line.strip() and not line.startswith("smiles")]
        self.vocab = vocab or SmilesVocab(self.smiles)
        self.max_len = max_len

    def __len__(self):
        return len(self.smiles)

    def __getitem__(self, idx):
        ids = torch.tensor(self.vocab.encode(self.smiles[idx], self.max_len), dtype=torch.long)
        return ids


def one_hot(ids, n):
    return torch.nn.functional.one_hot(ids, n).float()
