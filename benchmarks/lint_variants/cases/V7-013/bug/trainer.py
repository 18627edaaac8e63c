import glob
import logging
import os
import random
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from config import Config
from model import BOS, EOS, PAD, MusicTransformer, noam_lambda

logger = logging.getLogger(__name__)


class EventSequenceDataset(Dataset):
    def __init__(self, files, seq_len, pitch_shift=0, train=True):
        self.files = files
        self.seq_len = seq_len
        self.pitch_shift = pitch_shift
        self.train = train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        events = np.load(self.files[i])
        if len(events) > self.seq_len - 1:
            start = random.randint(0, len(events) - self.seq_len + 1) if self.train else 0
            events = events[start:start + self.seq_len - 1]
        if self.train and self.pitch_shift:
            shift = random.randint(-self.pitch_shift, self.pitch_shift)
            note = events < 256
            events = np.where(note, np.clip(events + shift, 0, 255), events)
        seq = np.concatenate([[BOS], events, [EOS]]).astype(np.int64)
        padded = np.full(self.seq_len + 1, PAD, dtype=np.int64)
        padded[: len(seq)] = seq[: self.seq_len + 1]
        return torch.from_numpy(padded)


class MusicTrainer:
    def __init__(self, cfg: Config, device: torch.device):
        self.cfg = cfg
        self.device = device
        m = cfg.model
        self.model = MusicTransformer(m.vocab_size, m.d_model, m.n_layers, m.n_heads, m.d_ff, m.max_seq,
                                      m.dropout).to(device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.train.lr, betas=(0.9, 0.98), eps=1e-9)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer,
                                                           noam_lambda(m.d_model, cfg.train.warmup_steps))
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.train.amp)
        self.global_step = 0
        self.start_epoch = 0
        files = sorted(glob.glob(os.path.join(cfg.data.root, "*.npy")))
        split = int(0.9 * len(files))
        d = cfg.data
        self.train_dl = DataLoader(EventSequenceDataset(files[:split], d.seq_len, d.pitch_shift), cfg.train.batch_size,
                                   shuffle=True, num_workers=d.num_workers, drop_last=True)
        self.valid_dl = DataLoader(EventSequenceDataset(files[split:], d.seq_len, train=False), cfg.train.batch_size,
                                   num_workers=d.num_workers)
        os.makedirs(cfg.train.ckpt_dir, exist_ok=True)
        if cfg.train.resume:
            self.load(cfg.train.resume)

    def compute_loss(self, batch):
        batch = batch.to(self.device)
        inp, tgt = batch[:, :-1], batch[:, 1:]
        with torch.autocast(self.device.type, enabled=self.cfg.train.amp):
            logits = self.model(inp)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), tgt.reshape(-1), ignore_index=PAD,
                                   label_smoothing=self.cfg.train.label_smoothing)
        return loss

    def on_log(self, epoch, losses, t0):
        recent = torch.stack(losses[-self.cfg.train.log_every:]).mean().item()
        logger.info("epoch %d step %d loss %.4f lr %.2e %.1f it/s", epoch, self.global_step, recent,
                    self.scheduler.get_last_lr()[0], self.cfg.train.log_every / (time.time() - t0))

    def train_epoch(self, epoch):
        self.model.train()
        losses = []
        t0 = time.time()
        for batch in self.train_dl:
            loss = self.compute_loss(batch)
            self.optimizer.zero_grad(set_to_none=True)
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.train.grad_clip)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
            self.global_step += 1
            losses.append(loss)
            if self.global_step % self.cfg.train.log_every == 0:
                self.on_log(epoch, losses, t0)
                t0 = time.time()
        return torch.stack(losses).mean().item()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total, n = 0.0, 0
        for batch in self.valid_dl:
            total += self.compute_loss(batch).item()
            n += 1
        return total / max(n, 1)

    def save(self, name):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "step": self.global_step},
                   os.path.join(self.cfg.train.ckpt_dir, name))

    def load(self, path):
        state = torch.load(path, map_location=self.device)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.global_step = state["step"]

    def fit(self):
        best = float("inf")
        for epoch in range(self.start_epoch, self.cfg.train.epochs):
            train_loss = self.train_epoch(epoch)
            val_loss = self.validate()
            logger.info("epoch %d train %.4f valid %.4f", epoch, train_loss, val_loss)
            self.save("last.pt")
            if val_loss < best:
                best = val_loss
                self.save("best.pt")
