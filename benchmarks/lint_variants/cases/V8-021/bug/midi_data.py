import glob
import os
import pickle

import torch
from torch.utils.data import Dataset

PAD_TOKEN = 388
EOS_TOKEN = 389


class EventSequenceDataset(Dataset):
    """Pre-encoded MAESTRO performances: each .pickle holds a list of event ids in [0, 388)."""

    def __init__(self, root, split, max_seq=2048, random_crop=True):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.pickle")))
        self.max_seq = max_seq
        self.random_crop = random_crop

    def __len__(self):
        return len(self.files)

    def _load(self, path):
        with open(path, "rb") as f:
            return pickle.load(f)

    def __getitem__(self, idx):
        events = self._load(self.files[idx])
        full = self.max_seq + 1
        if len(events) >= full:
            if self.random_crop:
                start = int(torch.randint(0, len(events) - full + 1, (1,)))
            else:
                start = 0
            seq = events[start:start + full]
        else:
            seq = list(events) + [EOS_TOKEN] + [PAD_TOKEN] * (full - len(events) - 1)
        seq = torch.tensor(seq, dtype=torch.long)
        return seq[:-1], seq[1:]


def transpose_batch(x, y, semitones):
    """Pitch-shift note-on/note-off events (ids 0..255) by `semitones`, leaving other events alone."""
    def shift(t):
        out = t.clone()
        note = t < 256
        pitch = t % 128
        shifted = (pitch + semitones).clamp(0, 127)
        out[note] = (t[note] - pitch[note]) + shifted[note]
        return out
    return shift(x), shift(y)
