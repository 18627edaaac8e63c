import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class DepthNet(nn.Module):
    def __init__(self, base=32):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o),
                                 nn.ReLU(inplace=True))

        self.enc1, self.enc2, self.enc3 = block(3, base), block(base, base * 2), block(base * 2, base * 4)
        self.dec2, self.dec1 = block(base * 4 + base * 2, base * 2), block(base * 2 + base, base)
        self.head = nn.Sequential(nn.Dropout2d(0.1), nn.Conv2d(base, 1, 1))

    def forward(self, inputs, depth=None, mode="tensor"):
        e1 = self.enc1(inputs)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        e3 = self.enc3(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([F.interpolate(e3, scale_factor=2), e2], 1))
        d1 = self.dec1(torch.cat([F.interpolate(d2, scale_factor=2), e1], 1))
        pred = F.softplus(self.head(d1))
        if mode == "loss":
            valid = depth > 0
            return {"loss": F.l1_loss(pred[valid], depth[valid])}
        return pred


class IterBasedRunner:
    def __init__(self, model, optimizer, train_dataloader, max_iters, work_dir, hooks=()):
        self.model = model
        self.optimizer = optimizer
        self.train_dataloader = train_dataloader
        self.max_iters = max_iters
        self.work_dir = work_dir
        self.hooks = sorted(hooks, key=lambda h: h.priority)
        self.iter = 0
        self.device = next(model.parameters()).device
        os.makedirs(work_dir, exist_ok=True)

    def to_device(self, data):
        return {k: v.to(self.device, non_blocking=True) for k, v in data.items()}

    def call_hook(self, name, **kwargs):
        for hook in self.hooks:
            getattr(hook, name)(self, **kwargs)

    def run(self):
        self.call_hook("before_run")
        self.model.train()
        data_iter = iter(self.train_dataloader)
        while self.iter < self.max_iters:
            try:
                data = next(data_iter)
            except StopIteration:
                data_iter = iter(self.train_dataloader)
                data = next(data_iter)
            losses = self.model(**self.to_device(data), mode="loss")
            self.optimizer.zero_grad()
            losses["loss"].backward()
            self.optimizer.step()
            self.iter += 1
            self.call_hook("after_train_iter", batch_idx=self.iter, outputs={"loss": losses["loss"].item()})
        self.call_hook("after_run")
