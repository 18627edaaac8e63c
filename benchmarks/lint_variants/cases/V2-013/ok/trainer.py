import math
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from dataset import get_dataloader
from model import TinyGPT


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.distributed = "WORLD_SIZE" in os.environ
        if self.distributed:
            dist.init_process_group(backend="nccl")
            self.rank = dist.get_rank()
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        else:
            self.rank = 0
        self.device = torch.device("cuda")
        model = TinyGPT(cfg.vocab_size, cfg.block_size, cfg.n_layer, cfg.n_head, cfg.n_embd).to(self.device)
        self.model = DistributedDataParallel(model, device_ids=[torch.cuda.current_device()]) \
            if self.distributed else model
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr, betas=(0.9, 0.95),
                                           weight_decay=cfg.weight_decay)
        self.train_dl = get_dataloader(cfg.train_bin, cfg.block_size, cfg.batch_size, self.distributed)
        self.val_dl = get_dataloader(cfg.val_bin, cfg.block_size, cfg.batch_size, self.distributed, train=False)

    def train_epoch(self, epoch):
        if self.distributed:
            self.train_dl.sampler.set_epoch(epoch)
        self.model.train()
        for it, (x, y) in enumerate(self.train_dl):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = self.model(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.grad_clip)
            self.optimizer.step()
            if self.rank == 0 and it % self.cfg.log_interval == 0:
                print(f"epoch {epoch} iter {it}: loss {loss.item():.4f}")

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        losses = []
        for x, y in self.val_dl:
            x, y = x.to(self.device), y.to(self.device)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = self.model(x)
            losses.append(F.cross_entropy(logits.float().view(-1, logits.size(-1)), y.view(-1)).item())
        return sum(losses) / max(len(losses), 1)

    def fit(self):
        for epoch in range(self.cfg.epochs):
            self.train_epoch(epoch)
            val_loss = self.validate()
            if self.rank == 0:
                print(f"epoch {epoch}: val loss {val_loss:.4f} ppl {math.exp(val_loss):.2f}")
                raw = self.model.module if self.distributed else self.model
                torch.save(raw.state_dict(), os.path.join(self.cfg.out_dir, "ckpt.pt"))
        if self.distributed:
            dist.destroy_process_group()
