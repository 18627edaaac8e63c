import os

import pandas as pd
import torch
import torchaudio
from torch.utils.data import Dataset, DataLoader


class ESC50(Dataset):
    def __init__(self, root, folds, train):
        meta = pd.read_csv(os.path.join(root, "meta", "esc50.csv"))
        self.meta = meta[meta.fold.isin(folds)].reset_index(drop=True)
        self.root = root
        self.train = train
        self.melspec = torchaudio.transforms.MelSpectrogram(44100, n_fft=2048, hop_length=512, n_mels=128)
        self.to_db = torchaudio.transforms.AmplitudeToDB()

    def __len__(self):
        return len(self.meta)

    def __getitem__(self, i):
        row = self.meta.iloc[i]
        wav, _ = torchaudio.load(os.path.join(self.root, "audio", row.filename))
        if self.train:
            wav = torch.roll(wav, int(torch.randint(0, wav.shape[-1], (1,))), dims=-1)
        spec = self.to_db(self.melspec(wav))
        return (spec - spec.mean()) / (spec.std() + 1e-6), int(row.target)


def get_loaders(root, fold, batch_size):
    train = ESC50(root, [f for f in range(1, 6) if f != fold], train=True)
    val = ESC50(root, [fold], train=False)
    return (DataLoader(train, batch_size=batch_size, shuffle=True, num_workers=4, drop_last=True),
            DataLoader(val, batch_size=batch_size, num_workers=4))
