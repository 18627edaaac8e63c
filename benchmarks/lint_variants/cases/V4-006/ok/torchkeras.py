import sys
import time

import torch
import torch.nn as nn


class History:
    def __init__(self):
        self.history = {}

    def log(self, **kwargs):
        for k, v in kwargs.items():
            self.history.setdefault(k, []).append(v)


def train_on_batch(net, optimizer, loss_fn, metrics, features, labels):
    net.train()
    preds = net(features)
    loss = loss_fn(preds, labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    logs = {"loss": loss.item()}
    for name, fn in metrics.items():
        logs[name] = fn(preds.detach(), labels).item()
    return logs


@torch.no_grad()
def evaluate_on_batch(net, loss_fn, metrics, features, labels):
    net.eval()
    preds = net(features)
    logs = {"val_loss": loss_fn(preds, labels).item()}
    for name, fn in metrics.items():
        logs["val_" + name] = fn(preds, labels).item()
    return logs


class Model(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)

    def compile(self, loss_func, optimizer=None, metrics_dict=None, device=None):
        self.loss_func = loss_func
        self.optimizer = optimizer or torch.optim.Adam(self.parameters(), lr=1e-3)
        self.metrics_dict = metrics_dict or {}
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.to(self.device)

    def _mean_logs(self, logs_list):
        keys = logs_list[0].keys()
        return {k: sum(l[k] for l in logs_list) / len(logs_list) for k in keys}

    def fit(self, train_data, epochs=10, val_data=None, log_step_freq=100):
        hist = History()
        for epoch in range(1, epochs + 1):
            t0 = time.time()
            step_logs = []
            for step, (features, labels) in enumerate(train_data, 1):
                features, labels = features.to(self.device), labels.to(self.device)
                step_logs.append(train_on_batch(self.net, self.optimizer, self.loss_func,
                                                self.metrics_dict, features, labels))
                if step % log_step_freq == 0:
                    sys.stdout.write(f"\r[step = {step}] {self._mean_logs(step_logs)}")
            epoch_logs = self._mean_logs(step_logs)
            if val_data is not None:
                val_logs = [evaluate_on_batch(self.net, self.loss_func, self.metrics_dict,
                                              f.to(self.device), l.to(self.device))
                            for f, l in val_data]
                epoch_logs.update(self._mean_logs(val_logs))
            hist.log(epoch=epoch, **epoch_logs)
            print(f"\nEPOCH = {epoch} ({time.time() - t0:.1f}s) {epoch_logs}")
        return hist.history
