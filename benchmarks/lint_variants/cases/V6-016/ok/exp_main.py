import os
import time

import numpy as np
import torch
import torch.nn as nn

from data_factory import data_provider
from models import build_model


class Exp_Main:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
        self.model = build_model(args).to(self.device)

    def vali(self, loader, criterion):
        self.model.eval()
        total = []
        with torch.no_grad():
            for batch_x, batch_y in loader:
                pred = self.model(batch_x.float().to(self.device))
                total.append(criterion(pred, batch_y.float().to(self.device)).item())
        self.model.train()
        return np.average(total)

    def train(self, setting):
        train_loader = data_provider(self.args, "train")
        vali_loader = data_provider(self.args, "val")
        path = os.path.join(self.args.checkpoints, setting)
        os.makedirs(path, exist_ok=True)
        optim = torch.optim.Adam(self.model.parameters(), lr=self.args.learning_rate)
        criterion = nn.MSELoss()
        best = np.inf
        for epoch in range(self.args.train_epochs):
            t0, train_loss = time.time(), []
            self.model.train()
            for batch_x, batch_y in train_loader:
                optim.zero_grad()
                pred = self.model(batch_x.float().to(self.device))
                loss = criterion(pred, batch_y.float().to(self.device))
                loss.backward()
                optim.step()
                train_loss.append(loss.item())
            vali_loss = self.vali(vali_loader, criterion)
            print(f"Epoch: {epoch + 1} cost {time.time() - t0:.1f}s | Train Loss: {np.average(train_loss):.7f} "
                  f"Vali Loss: {vali_loss:.7f}")
            if vali_loss < best:
                best = vali_loss
                torch.save(self.model.state_dict(), os.path.join(path, "checkpoint.pth"))
        return self.model
