import copy
import logging

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset

logger = logging.getLogger(__name__)


class Client:
    def __init__(self, cid, dataset, indices, batch_size=32, local_epochs=5, lr=0.01, device="cpu"):
        self.cid = cid
        self.loader = DataLoader(Subset(dataset, indices), batch_size=batch_size, shuffle=True, drop_last=len(indices) > batch_size)
        self.num_samples = len(indices)
        self.local_epochs = local_epochs
        self.lr = lr
        self.device = device
        self.targets = [dataset.targets[i] for i in indices]

    def label_histogram(self, num_classes=10):
        hist = [0] * num_classes
        for t in self.targets:
            hist[int(t)] += 1
        return hist

    def local_train(self, model, global_state, mu=0.0):
        model.load_state_dict(global_state)
        model.train()
        global_params = [p.detach().clone() for p in model.parameters()] if mu > 0 else None
        optimizer = torch.optim.SGD(model.parameters(), lr=self.lr, momentum=0.9, weight_decay=1e-4)
        criterion = nn.CrossEntropyLoss()
        total, steps = 0.0, 0
        for _ in range(self.local_epochs):
            for x, y in self.loader:
                x, y = x.to(self.device), y.to(self.device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                if global_params is not None:
                    prox = sum(((p - g) ** 2).sum() for p, g in zip(model.parameters(), global_params))
                    loss = loss + 0.5 * mu * prox
                loss.backward()
                optimizer.step()
                total += loss.item()
                steps += 1
        logger.debug("client %d: %d steps, avg loss %.4f", self.cid, steps, total / max(steps, 1))
        return copy.deepcopy(model.state_dict()), self.num_samples, total / max(steps, 1)
