import argparse
import logging

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from base_trainer import BaseTrainer
from midi_data import PAD_TOKEN, EventSequenceDataset, transpose_batch
from model import MusicTransformer


class MusicTransformerTrainer(BaseTrainer):
    def __init__(self, model, optimizer, scheduler, device, save_dir, label_smoothing=0.1, clip=1.0):
        super().__init__(model, optimizer, device, save_dir)
        self.scheduler = scheduler
        self.label_smoothing = label_smoothing
        self.clip = clip

    def _loss(self, logits, target, reduction="mean"):
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=PAD_TOKEN,
                               label_smoothing=self.label_smoothing, reduction=reduction)

    def _train_step(self, batch):
        x, y = (t.to(self.device) for t in batch)
        semitones = int(torch.randint(-3, 4, (1,)))
        x, y = transpose_batch(x, y, semitones)
        loss = self._loss(self.model(x), y)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        self.scheduler.step()
        return loss

    def _eval_step(self, batch):
        x, y = (t.to(self.device) for t in batch)
        loss_sum = self._loss(self.model(x), y, reduction="sum").item()
        return loss_sum, int((y != PAD_TOKEN).sum())


def noam_lambda(d_model, warmup):
    return lambda step: d_model ** -0.5 * min((step + 1) ** -0.5, (step + 1) * warmup ** -1.5)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="dataset/maestro_events")
    ap.add_argument("--max-seq", type=int, default=2048)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=4000)
    ap.add_argument("--save-dir", default="saved_models/music_transformer")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train = DataLoader(EventSequenceDataset(args.data, "train", args.max_seq), args.batch_size, shuffle=True,
                       num_workers=4, drop_last=True)
    val = DataLoader(EventSequenceDataset(args.data, "validation", args.max_seq, random_crop=False), args.batch_size)
    model = MusicTransformer(max_len=args.max_seq)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, noam_lambda(model.d_model, args.warmup))
    MusicTransformerTrainer(model, optimizer, scheduler, device, args.save_dir).fit(train, val, args.epochs)


if __name__ == "__main__":
    main()
