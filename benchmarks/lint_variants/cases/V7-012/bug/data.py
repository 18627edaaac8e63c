import logging
from typing import List, Tuple

import numpy as np
import pandas as pd
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import Dataset

log = logging.getLogger(__name__)


def load_assistments(path: str, min_len: int = 3) -> Tuple[List[Tuple[np.ndarray, np.ndarray]], int]:
    df = pd.read_csv(path, encoding="latin-1", low_memory=False)
    df = df.dropna(subset=["skill_id"])
    df = df[df["original"] == 1] if "original" in df.columns else df
    df = df.sort_values(["user_id", "order_id"])
    skill_codes, _ = pd.factorize(df["skill_id"])
    df["skill"] = skill_codes + 1
    num_skills = int(df["skill"].max())
    seqs = []
    for _, g in df.groupby("user_id"):
        if len(g) >= min_len:
            seqs.append((g["skill"].to_numpy(np.int64), g["correct"].to_numpy(np.int64)))
    log.info("%d learners, %d skills, %d interactions", len(seqs), num_skills, len(df))
    return seqs, num_skills


class KTDataset(Dataset):
    def __init__(self, seqs, max_len: int = 200):
        self.items = []
        for skills, responses in seqs:
            for start in range(0, len(skills), max_len):
                s, r = skills[start:start + max_len], responses[start:start + max_len]
                if len(s) >= 2:
                    self.items.append((s, r))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        s, r = self.items[i]
        return torch.from_numpy(s), torch.from_numpy(r)


def collate(batch):
    skills, responses = zip(*batch)
    skills = pad_sequence(skills, batch_first=True, padding_value=0)
    responses = pad_sequence(responses, batch_first=True, padding_value=0)
    return {
        "skills": skills[:, :-1],
        "responses": responses[:, :-1],
        "next_skills": skills[:, 1:],
        "next_responses": responses[:, 1:].float(),
        "mask": skills[:, 1:] != 0,
    }


def split_learners(seqs, valid_frac: float = 0.1, test_frac: float = 0.2, seed: int = 0):
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(seqs))
    n_test, n_valid = int(len(seqs) * test_frac), int(len(seqs) * valid_frac)
    test = [seqs[i] for i in idx[:n_test]]
    valid = [seqs[i] for i in idx[n_test:n_test + n_valid]]
    train = [seqs[i] for i in idx[n_test + n_valid:]]
    return train, valid, test
