import csv
import logging
from dataclasses import dataclass
from typing import List, Tuple

import torch
import torchaudio
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import Dataset

log = logging.getLogger(__name__)

VOCAB = ["<blank>", " ", "'"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]


class CharTokenizer:
    def __init__(self, vocab: List[str] = VOCAB):
        self.vocab = vocab
        self.stoi = {c: i for i, c in enumerate(vocab)}
        self.blank_id = 0

    def encode(self, text: str) -> List[int]:
        return [self.stoi[c] for c in text.lower() if c in self.stoi and c != "<blank>"]

    def ctc_decode(self, ids: List[int]) -> str:
        out, prev = [], None
        for i in ids:
            if i != prev and i != self.blank_id:
                out.append(self.vocab[i])
            prev = i
        return "".join(out).strip()


@dataclass
class FeaturizerConfig:
    sample_rate: int = 16000
    n_mels: int = 64
    win_length: int = 400
    hop_length: int = 160


class LogMelFeaturizer(torch.nn.Module):
    def __init__(self, cfg: FeaturizerConfig = FeaturizerConfig()):
        super().__init__()
        self.cfg = cfg
        self.mel = torchaudio.transforms.MelSpectrogram(
            sample_rate=cfg.sample_rate, n_fft=512, win_length=cfg.win_length,
            hop_length=cfg.hop_length, n_mels=cfg.n_mels)

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        spec = torch.log(self.mel(wav) + 1e-6)
        return (spec - spec.mean(-1, keepdim=True)) / (spec.std(-1, keepdim=True) + 1e-5)

    def load(self, path: str) -> torch.Tensor:
        wav, sr = torchaudio.load(path)
        if sr != self.cfg.sample_rate:
            wav = torchaudio.functional.resample(wav, sr, self.cfg.sample_rate)
        return self(wav.mean(0))


class ManifestDataset(Dataset):
    def __init__(self, manifest: str, tokenizer: CharTokenizer, featurizer: LogMelFeaturizer):
        with open(manifest) as f:
            self.rows = [(r["audio_filepath"], r["text"]) for r in csv.DictReader(f)]
        self.tokenizer = tokenizer
        self.featurizer = featurizer
        log.info("loaded %d utterances from %s", len(self.rows), manifest)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        path, text = self.rows[idx]
        feats = self.featurizer.load(path)
        return feats.T, torch.tensor(self.tokenizer.encode(text), dtype=torch.long)


def collate(batch):
    feats, targets = zip(*batch)
    feat_lens = torch.tensor([f.shape[0] for f in feats])
    tgt_lens = torch.tensor([t.shape[0] for t in targets])
    feats = pad_sequence(feats, batch_first=True).transpose(1, 2)
    targets = pad_sequence(targets, batch_first=True)
    return feats, feat_lens, targets, tgt_lens
