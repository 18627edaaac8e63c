import logging
import os

import torch
from torch.cuda.amp import GradScaler, autocast
from tqdm import tqdm

from loss import NTXentLoss


class SimCLR(object):
    def __init__(self, model, optimizer, scheduler, args):
        self.args = args
        self.model = model.to(args.device)
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.criterion = NTXentLoss(args.temperature).to(args.device)
        os.makedirs(args.log_dir, exist_ok=True)
        logging.basicConfig(filename=os.path.join(args.log_dir, "training.log"), level=logging.DEBUG)

    def train(self, train_loader):
        scaler = GradScaler(enabled=self.args.fp16_precision)
        n_iter = 0
        for epoch in range(self.args.epochs):
            for (view1, view2), _ in tqdm(train_loader):
                view1 = view1.to(self.args.device)
                view2 = view2.to(self.args.device)
                with autocast(enabled=self.args.fp16_precision):
                    loss = self.criterion(self.model(view1), self.model(view2))
                self.optimizer.zero_grad()
                scaler.scale(loss).backward()
                scaler.step(self.optimizer)
                scaler.update()
                if n_iter % self.args.log_every_n_steps == 0:
                    logging.debug(f"Epoch {epoch}\tIter {n_iter}\tLoss {loss.item():.4f}")
                n_iter += 1
            if epoch >= 10:
                self.scheduler.step()
            logging.info(f"Epoch {epoch} done, lr {self.scheduler.get_last_lr()[0]:.5f}")
        torch.save({"epoch": self.args.epochs, "arch": self.args.arch, "state_dict": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()},
                   os.path.join(self.args.log_dir, f"checkpoint_{self.args.epochs:04d}.pth.tar"))
