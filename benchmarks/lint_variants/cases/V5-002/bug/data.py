import pandas as pd
import torch
from torch.utils.data import Dataset

LABELS = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]


class CommentDataset(Dataset):
    def __init__(self, csv_path):
        df = pd.read_csv(csv_path)
        self.texts = df["comment_text"].fillna("").tolist()
        self.targets = df[LABELS].values.astype("float32")

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        return self.texts[idx], self.targets[idx]


def make_collate_fn(tokenizer, max_len=256):
    def collate_fn(batch):
        texts, targets = zip(*batch)
        enc = tokenizer(list(texts), padding=True, truncation=True,
                        max_length=max_len, return_tensors="pt")
        enc["labels"] = torch.tensor(targets)
        return enc
    return collate_fn
