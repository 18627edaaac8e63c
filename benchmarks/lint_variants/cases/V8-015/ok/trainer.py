import logging
import os

import torch
import torch.nn.functional as F
from transformers import get_linear_schedule_with_warmup

from data import load_stsb, spearman

logger = logging.getLogger(__name__)


class SimCSETrainer:
    def __init__(self, model, tokenizer, train_loader, args, device):
        self.model = model.to(device)
        self.tokenizer = tokenizer
        self.train_loader = train_loader
        self.args = args
        self.device = device
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
        total = len(train_loader) * args.epochs
        self.scheduler = get_linear_schedule_with_warmup(self.optimizer, 0, total)
        self.global_step = 0
        self.best = -1.0
        self.sts = load_stsb(args.stsb_dev)

    def on_step_end(self, losses):
        if self.global_step % self.args.logging_steps == 0:
            avg = torch.stack(losses[-self.args.logging_steps:]).mean().item()
            logger.info("step %d loss %.5f lr %.2e", self.global_step, avg, self.scheduler.get_last_lr()[0])
        if self.global_step % self.args.eval_steps == 0:
            score = self.evaluate()
            logger.info("step %d stsb-dev spearman %.4f", self.global_step, score)
            if score > self.best:
                self.best = score
                self.save(os.path.join(self.args.output_dir, "best"))
            self.model.train()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        s1, s2, gold = self.sts
        e1 = self.model.embed_sentences(self.tokenizer, s1, self.device)
        e2 = self.model.embed_sentences(self.tokenizer, s2, self.device)
        return spearman(F.cosine_similarity(e1, e2).cpu(), gold)

    def save(self, path):
        os.makedirs(path, exist_ok=True)
        self.model.encoder.save_pretrained(path)
        self.tokenizer.save_pretrained(path)
        torch.save(self.model.mlp.state_dict(), os.path.join(path, "mlp_pooler.bin"))

    def train(self):
        for epoch in range(self.args.epochs):
            self.model.train()
            losses = []
            for batch in self.train_loader:
                batch = {k: v.to(self.device) for k, v in batch.items()}
                loss, _ = self.model(**batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.scheduler.step()
                self.global_step += 1
                losses.append(loss.detach())
                self.on_step_end(losses)
            logger.info("epoch %d done, mean loss %.5f", epoch, torch.stack(losses).mean().item())
        return self.best
