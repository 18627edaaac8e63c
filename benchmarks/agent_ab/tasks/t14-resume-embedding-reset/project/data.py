"""Synthetic intents: each class prefers a handful of keyword tokens.

The training stream is deterministic given (seed, step): every epoch is a fresh
permutation drawn from a generator seeded with (seed, epoch), so a resumed job sees
exactly the batches the uninterrupted job would have seen.
"""
from __future__ import annotations

from typing import Iterator, Tuple

import torch

from config import Config

KEYWORD_SEED = 99


def make_split(cfg: Config, n: int, seed: int) -> Tuple[torch.Tensor, torch.Tensor]:
    d = cfg.data
    g = torch.Generator().manual_seed(KEYWORD_SEED)
    keywords = torch.randint(2, d.vocab_size, (d.num_classes, 8), generator=g)
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, d.num_classes, (n,), generator=g)
    x = torch.randint(2, d.vocab_size, (n, d.seq_len), generator=g)
    use_kw = torch.rand(n, d.seq_len, generator=g) < 0.25
    kw = keywords[y][torch.arange(n)[:, None], torch.randint(0, 8, (n, d.seq_len), generator=g)]
    x = torch.where(use_kw, kw, x)
    return x, y


class BatchStream:
    """Infinite stream of training batches, addressable by global step."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor, batch_size: int, seed: int):
        self.x, self.y, self.batch_size, self.seed = x, y, batch_size, seed
        self.steps_per_epoch = len(x) // batch_size

    def _order(self, epoch: int) -> torch.Tensor:
        g = torch.Generator().manual_seed(self.seed * 10_000 + epoch)
        return torch.randperm(len(self.x), generator=g)

    def iterate(self, start_step: int = 0) -> Iterator[Tuple[int, torch.Tensor, torch.Tensor]]:
        """Yields (step, x, y) with step = start_step + 1, start_step + 2, ..."""
        step = start_step
        while True:
            epoch, offset = divmod(step, self.steps_per_epoch)
            order = self._order(epoch)
            for i in range(offset, self.steps_per_epoch):
                idx = order[i * self.batch_size:(i + 1) * self.batch_size]
                step += 1
                yield step, self.x[idx], self.y[idx]


def build_data(cfg: Config):
    train = make_split(cfg, cfg.data.train_size, seed=cfg.seed * 7 + 1)
    val = make_split(cfg, cfg.data.val_size, seed=cfg.seed * 7 + 2)
    return BatchStream(*train, cfg.train.batch_size, cfg.seed), val
