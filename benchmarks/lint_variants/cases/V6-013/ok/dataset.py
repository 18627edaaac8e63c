import torch
import torch.nn.functional as F
import torchaudio
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchaudio.datasets import SPEECHCOMMANDS


class SubsetSC(SPEECHCOMMANDS):
    def __init__(self, root, subset):
        super().__init__(root, download=False, subset=subset)


def make_collate(labels, sample_rate=16000):
    mel = torchaudio.transforms.MelSpectrogram(sample_rate=sample_rate, n_mels=64)

    def collate(batch):
        wavs, targets = [], []
        for waveform, _, label, *_ in batch:
            wav = waveform[0]
            wav = F.pad(wav, (0, sample_rate - wav.shape[-1])) if wav.shape[-1] < sample_rate else wav[:sample_rate]
            wavs.append(wav)
            targets.append(labels.index(label))
        feats = torch.log(mel(torch.stack(wavs)) + 1e-6)
        return feats, torch.tensor(targets)
    return collate


def get_dataloader(root, subset, labels, batch_size, rank, world_size, num_workers=4):
    ds = SubsetSC(root, subset)
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=(subset == "training"))
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=num_workers,
                      collate_fn=make_collate(labels), pin_memory=True)
