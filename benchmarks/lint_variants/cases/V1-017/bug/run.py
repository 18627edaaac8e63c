import logging
import sys

import torch
import torchaudio
import yaml
from torch.utils.data import DataLoader, Dataset

from model import AudioCNN
from runner import Runner


class ESC50(Dataset):
    def __init__(self, meta, root, folds, sr=44100, n_mels=128):
        self.rows = meta[meta.fold.isin(folds)].reset_index(drop=True)
        self.root = root
        self.mel = torchaudio.transforms.MelSpectrogram(sr, n_fft=2048, hop_length=512, n_mels=n_mels)
        self.db = torchaudio.transforms.AmplitudeToDB()

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows.iloc[i]
        wav, _ = torchaudio.load(f"{self.root}/audio/{row.filename}")
        return self.db(self.mel(wav)), int(row.target)


if __name__ == "__main__":
    import pandas as pd

    logging.basicConfig(level=logging.INFO)
    cfg = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "configs/esc50.yaml"))
    meta = pd.read_csv(f"{cfg['root']}/meta/esc50.csv")
    train_ds = ESC50(meta, cfg["root"], folds=[1, 2, 3, 4])
    val_ds = ESC50(meta, cfg["root"], folds=[5])
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=4)
    val_loader = DataLoader(val_ds, batch_size=cfg["batch_size"], num_workers=4)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    runner = Runner(AudioCNN(n_classes=50), cfg, device)
    print("best val acc:", runner.fit(train_loader, val_loader))
