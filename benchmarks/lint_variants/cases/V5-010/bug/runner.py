import numpy as np
import torch
import torch.nn as nn


class Runner:
    def __init__(self, model, cfg, device="cpu"):
        self.model = model.to(device)
        self.cfg = cfg
        self.device = device
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    def train_epoch(self, loader):
        self.model.train()
        losses = []
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            pred = self.model(x)
            loss = self.criterion(pred, y)
            self.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            losses.append(loss.item())
        return float(np.mean(losses))

    @torch.no_grad()
    def forecast(self, history, horizon):
        window = torch.as_tensor(history[-self.cfg.seq_len:], dtype=torch.float32, device=self.device)
        window = window.unsqueeze(0)
        outputs = []
        for _ in range(horizon):
            nxt = self.model(window)
            outputs.append(nxt.squeeze(0).cpu().numpy())
            window = torch.cat([window[:, 1:], nxt.unsqueeze(1)], dim=1)
        return np.stack(outputs)
