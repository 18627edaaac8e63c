import math
import os

import torch
from torch.cuda.amp import GradScaler, autocast
from tqdm import tqdm


class Seq2SeqTrainer:
    def __init__(self, model, tokenizer, optimizer, scheduler, args):
        self.model = model
        self.tokenizer = tokenizer
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.args = args
        self.device = torch.device("cuda")
        self.scaler = GradScaler(enabled=args.fp16)
        self.global_step = 0

    def train_epoch(self, loader, epoch):
        self.model.train()
        running = 0.0
        accum = self.args.gradient_accumulation_steps
        pbar = tqdm(loader, desc=f"epoch {epoch}")
        for step, batch in enumerate(pbar):
            batch = {k: v.to(self.device) for k, v in batch.items()}
            with autocast(enabled=self.args.fp16):
                loss = self.model(**batch).loss
            self.scaler.scale(loss).backward()
            running += loss.item()
            if (step + 1) % accum == 0 or step + 1 == len(loader):
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.scheduler.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.global_step += 1
                pbar.set_postfix(loss=running / (step + 1), lr=self.scheduler.get_last_lr()[0])
        return running / len(loader)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        losses = []
        for batch in loader:
            batch = {k: v.to(self.device) for k, v in batch.items()}
            losses.append(self.model(**batch).loss.item())
        val = sum(losses) / len(losses)
        return val, math.exp(val)

    def save(self, name):
        path = os.path.join(self.args.output_dir, name)
        self.model.save_pretrained(path)
        self.tokenizer.save_pretrained(path)

    def train(self, train_loader, eval_loader):
        best = float("inf")
        for epoch in range(self.args.num_train_epochs):
            train_loss = self.train_epoch(train_loader, epoch)
            val_loss, ppl = self.evaluate(eval_loader)
            print(f"epoch {epoch}: train {train_loss:.4f} val {val_loss:.4f} ppl {ppl:.2f}")
            if val_loss < best:
                best = val_loss
                self.save("best")
