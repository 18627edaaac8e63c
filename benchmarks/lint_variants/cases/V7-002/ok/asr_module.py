import logging
from typing import List

import lightning.pytorch as pl
import torch
import torch.nn.functional as F
from torchmetrics.text import WordErrorRate

from data import CharTokenizer, LogMelFeaturizer
from quartznet import QuartzNet

log = logging.getLogger(__name__)


class CTCSpeechModule(pl.LightningModule):
    def __init__(self, n_mels: int = 64, lr: float = 0.05, weight_decay: float = 1e-3,
                 warmup_steps: int = 1000, max_steps: int = 100_000, dropout: float = 0.2):
        super().__init__()
        self.save_hyperparameters()
        self.tokenizer = CharTokenizer()
        self.featurizer = LogMelFeaturizer()
        self.encoder = QuartzNet(n_mels=n_mels, vocab_size=len(self.tokenizer.vocab), dropout=dropout)
        self.val_wer = WordErrorRate()

    def forward(self, feats, lengths):
        return self.encoder(feats, lengths)

    def _ctc(self, log_probs, out_lens, targets, tgt_lens):
        return F.ctc_loss(log_probs.transpose(0, 1), targets, out_lens, tgt_lens,
                          blank=self.tokenizer.blank_id, zero_infinity=True)

    def training_step(self, batch, batch_idx):
        feats, feat_lens, targets, tgt_lens = batch
        log_probs, out_lens = self(feats, feat_lens)
        loss = self._ctc(log_probs, out_lens, targets, tgt_lens)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        feats, feat_lens, targets, tgt_lens = batch
        log_probs, out_lens = self(feats, feat_lens)
        self.log("val_loss", self._ctc(log_probs, out_lens, targets, tgt_lens), sync_dist=True)
        hyps = self._greedy(log_probs, out_lens)
        refs = [self.tokenizer.ctc_decode(t[:n].tolist()) for t, n in zip(targets, tgt_lens)]
        self.val_wer.update(hyps, refs)
        self.log("val_wer", self.val_wer, on_epoch=True, prog_bar=True)

    def _greedy(self, log_probs, out_lens) -> List[str]:
        best = log_probs.argmax(-1)
        return [self.tokenizer.ctc_decode(b[:n].tolist()) for b, n in zip(best, out_lens)]

    @torch.inference_mode()
    def transcribe(self, paths: List[str], batch_size: int = 8) -> List[str]:
        self.eval()
        hyps: List[str] = []
        for start in range(0, len(paths), batch_size):
            feats = [self.featurizer.load(p).T for p in paths[start:start + batch_size]]
            lengths = torch.tensor([f.shape[0] for f in feats], device=self.device)
            batch = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True).transpose(1, 2).to(self.device)
            log_probs, out_lens = self(batch, lengths)
            hyps.extend(self._greedy(log_probs, out_lens))
        log.info("transcribed %d files", len(hyps))
        return hyps

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, betas=(0.95, 0.5),
                                weight_decay=self.hparams.weight_decay)
        warm, total = self.hparams.warmup_steps, self.hparams.max_steps

        def lr_lambda(step):
            if step < warm:
                return (step + 1) / warm
            return max(0.0, (total - step) / max(1, total - warm)) ** 2

        sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}
