import sys

import torch
from tqdm import tqdm


class IoUMeter:
    def __init__(self, num_classes, ignore_index=255):
        self.num_classes = num_classes
        self.ignore_index = ignore_index
        self.reset()

    def reset(self):
        self.conf = torch.zeros(self.num_classes, self.num_classes, dtype=torch.long)

    def update(self, logits, target):
        pred = logits.argmax(1).flatten().cpu()
        target = target.flatten().cpu()
        keep = target != self.ignore_index
        idx = target[keep] * self.num_classes + pred[keep]
        self.conf += torch.bincount(idx, minlength=self.num_classes ** 2).view(self.num_classes, -1)

    def miou(self):
        inter = self.conf.diag().float()
        union = self.conf.sum(0).float() + self.conf.sum(1).float() - inter
        return (inter / union.clamp_min(1)).mean().item()


class Epoch:
    def __init__(self, model, loss, num_classes, stage_name, device="cpu", verbose=True):
        self.model = model
        self.loss = loss
        self.stage_name = stage_name
        self.device = device
        self.verbose = verbose
        self.meter = IoUMeter(num_classes)
        self.model.to(device)
        self.loss.to(device)

    def batch_update(self, x, y):
        raise NotImplementedError

    def on_epoch_start(self):
        pass

    def run(self, dataloader):
        self.on_epoch_start()
        total, n = 0.0, 0
        with tqdm(dataloader, desc=self.stage_name, file=sys.stdout, disable=not self.verbose) as it:
            for x, y in it:
                x, y = x.to(self.device), y.to(self.device)
                loss, logits = self.batch_update(x, y)
                total += loss.item() * x.size(0)
                n += x.size(0)
                self.meter.update(logits.detach(), y)
                it.set_postfix(loss=total / n, miou=self.meter.miou())
        return {"loss": total / max(n, 1), "miou": self.meter.miou()}


class TrainEpoch(Epoch):
    def __init__(self, model, loss, optimizer, num_classes, device="cpu", verbose=True):
        super().__init__(model, loss, num_classes, "train", device, verbose)
        self.optimizer = optimizer

    def on_epoch_start(self):
        self.model.train()
        self.meter.reset()

    def batch_update(self, x, y):
        self.optimizer.zero_grad()
        logits = self.model(x)
        loss = self.loss(logits, y)
        loss.backward()
        self.optimizer.step()
        return loss, logits


class ValidEpoch(Epoch):
    def __init__(self, model, loss, num_classes, device="cpu", verbose=True):
        super().__init__(model, loss, num_classes, "valid", device, verbose)

    def on_epoch_start(self):
        self.meter.reset()

    def batch_update(self, x, y):
        with torch.no_grad():
            logits = self.model(x)
            loss = self.loss(logits, y)
        return loss, logits
