import os

import torch
from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms


class CharTokenizer:
    def __init__(self, charset, pad_id=0, bos_id=1, eos_id=2):
        self.pad_id, self.bos_id, self.eos_id = pad_id, bos_id, eos_id
        self.itos = ["<pad>", "<s>", "</s>"] + sorted(set(charset))
        self.stoi = {c: i for i, c in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, text):
        return [self.bos_id] + [self.stoi[c] for c in text if c in self.stoi] + [self.eos_id]

    def decode(self, ids):
        chars = []
        for i in ids:
            if i == self.eos_id:
                break
            if i not in (self.pad_id, self.bos_id):
                chars.append(self.itos[i])
        return "".join(chars)


class LineImageDataset(Dataset):
    def __init__(self, manifest, image_root, tokenizer, height=64, width=512, max_len=128):
        with open(manifest, encoding="utf-8") as f:
            self.rows = [line.rstrip("\n").split("\t", 1) for line in f if "\t" in line]
        self.root = image_root
        self.tok = tokenizer
        self.max_len = max_len
        self.tf = transforms.Compose([
            transforms.Resize((height, width)),
            transforms.ToTensor(),
            transforms.Normalize([0.5] * 3, [0.5] * 3),
        ])

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        name, text = self.rows[idx]
        image = Image.open(os.path.join(self.root, name)).convert("RGB")
        ids = self.tok.encode(text)[: self.max_len]
        return self.tf(image), torch.tensor(ids, dtype=torch.long), text


def collate(batch, pad_id=0):
    images, ids, texts = zip(*batch)
    labels = torch.nn.utils.rnn.pad_sequence(ids, batch_first=True, padding_value=pad_id)
    return torch.stack(images), labels, list(texts)


def cer(preds, refs):
    import editdistance
    errors = sum(editdistance.eval(p, r) for p, r in zip(preds, refs))
    return errors / max(sum(len(r) for r in refs), 1)
