import torch
import torch.nn as nn


class Shift(nn.Module):
    """Randomly shift each source in time by up to `shift` samples (applied on the GPU batch)."""

    def __init__(self, shift=8192, same=False):
        super().__init__()
        self.shift = shift
        self.same = same

    def forward(self, wav):
        batch, sources, channels, time = wav.size()
        length = time - self.shift
        if self.shift > 0 and self.training:
            srcs = 1 if self.same else sources
            offsets = torch.randint(self.shift, [batch, srcs, 1, 1], device=wav.device)
            offsets = offsets.expand(-1, sources, channels, -1)
            indexes = torch.arange(length, device=wav.device)
            wav = wav.gather(3, indexes + offsets)
        else:
            wav = wav[..., :length]
        return wav


class FlipSign(nn.Module):
    def forward(self, wav):
        if not self.training:
            return wav
        batch, sources, _, _ = wav.size()
        signs = torch.randint(2, (batch, sources, 1, 1), device=wav.device, dtype=torch.float32)
        return wav * (2 * signs - 1)


class FlipChannels(nn.Module):
    def forward(self, wav):
        if not self.training or wav.size(2) != 2:
            return wav
        batch, sources, _, time = wav.size()
        left = torch.randint(2, (batch, sources, 1, 1), device=wav.device)
        left = left.expand(-1, -1, -1, time)
        right = 1 - left
        return torch.cat([wav.gather(2, left), wav.gather(2, right)], dim=2)


class Remix(nn.Module):
    def __init__(self, group_size=4):
        super().__init__()
        self.group_size = group_size

    def forward(self, wav):
        if not self.training:
            return wav
        batch, streams, channels, time = wav.size()
        groups = batch // self.group_size
        if groups == 0:
            return wav
        wav = wav[: groups * self.group_size].view(groups, self.group_size, streams, channels, time)
        perm = torch.argsort(torch.rand(groups, self.group_size, streams, 1, 1, device=wav.device), dim=1)
        wav = wav.gather(1, perm.expand(-1, -1, -1, channels, time))
        return wav.view(groups * self.group_size, streams, channels, time)


def build_augment(shift=8192, remix_group=4):
    return nn.Sequential(Shift(shift), FlipSign(), FlipChannels(), Remix(remix_group))
