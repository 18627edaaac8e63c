import argparse
import logging
import os
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from augment import build_augment
from model import Demucs

logger = logging.getLogger("demucs.solver")


@dataclass
class OptimConfig:
    lr: float = 3e-4
    beta2: float = 0.999
    accum_steps: int = 4
    clip_grad: float = 5.0


@dataclass
class Config:
    epochs: int = 360
    batch_size: int = 16
    segment: int = 44100 * 11
    workers: int = 8
    checkpoint: str = "outputs/checkpoint.th"
    optim: OptimConfig = field(default_factory=OptimConfig)


class Solver:
    def __init__(self, cfg, model, train_loader, valid_loader, device):
        self.cfg = cfg
        self.model = model.to(device)
        self.device = device
        self.train_loader, self.valid_loader = train_loader, valid_loader
        self.augment = build_augment().to(device)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.optim.lr, betas=(0.9, cfg.optim.beta2))
        self.epoch = 0
        self.best = float("inf")
        if os.path.exists(cfg.checkpoint):
            state = torch.load(cfg.checkpoint, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.epoch, self.best = state["epoch"], state["best"]

    def _run_one_epoch(self):
        self.model.train()
        self.augment.train()
        accum = self.cfg.optim.accum_steps
        total = 0.0
        self.optimizer.zero_grad()
        for idx, sources in enumerate(self.train_loader):
            sources = self.augment(sources.to(self.device))
            mix = sources.sum(dim=1)
            estimate = self.model(mix)
            loss = F.l1_loss(estimate, sources)
            loss.backward()
            if (idx + 1) % accum == 0 or idx + 1 == len(self.train_loader):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.optim.clip_grad)
                self.optimizer.step()
                self.optimizer.zero_grad()
            total += loss.item()
        return total / len(self.train_loader)

    @torch.no_grad()
    def _validate(self):
        self.model.eval()
        self.augment.eval()
        total = 0.0
        for sources in self.valid_loader:
            sources = sources.to(self.device)[..., : self.cfg.segment]
            total += F.l1_loss(self.model(sources.sum(dim=1)), sources).item()
        return total / len(self.valid_loader)

    def train(self):
        for epoch in range(self.epoch, self.cfg.epochs):
            train_loss = self._run_one_epoch()
            valid_loss = self._validate()
            self.best = min(self.best, valid_loss)
            logger.info("epoch %d train %.4f valid %.4f best %.4f", epoch, train_loss, valid_loss, self.best)
            os.makedirs(os.path.dirname(self.cfg.checkpoint), exist_ok=True)
            torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                        "epoch": epoch + 1, "best": self.best}, self.cfg.checkpoint)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True, help="tensor file of stacked stems (N, S, C, T)")
    ap.add_argument("--valid", required=True)
    ap.add_argument("--accum-steps", type=int, default=4)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO)
    cfg = Config(optim=OptimConfig(accum_steps=args.accum_steps))
    train_set = TensorDataset(torch.load(args.train))
    valid_set = TensorDataset(torch.load(args.valid))
    collate = lambda batch: torch.stack([b[0] for b in batch])
    train_loader = DataLoader(train_set, cfg.batch_size, shuffle=True, num_workers=cfg.workers, collate_fn=collate)
    valid_loader = DataLoader(valid_set, 1, collate_fn=collate)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    Solver(cfg, Demucs(), train_loader, valid_loader, device).train()


if __name__ == "__main__":
    main()
