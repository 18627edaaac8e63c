import time

import numpy as np
import torch
import torch.nn.functional as F
from sklearn import metrics


class Runner:
    def __init__(self, model, config, train_iter, dev_iter):
        self.model = model
        self.config = config
        self.train_iter = train_iter
        self.dev_iter = dev_iter
        self.optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=2, gamma=0.5)
        self.best_f1 = 0.0

    def train_epoch(self, epoch):
        self.model.train()
        total, n = 0.0, 0
        for i, (texts, labels) in enumerate(self.train_iter):
            texts, labels = texts.to(self.config.device), labels.to(self.config.device)
            outputs = self.model(texts)
            loss = F.cross_entropy(outputs, labels)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
            n += 1
        return total / max(n, 1)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        preds, gold = [], []
        for texts, labels in self.dev_iter:
            outputs = self.model(texts.to(self.config.device))
            preds.append(outputs.argmax(1).cpu().numpy())
            gold.append(labels.numpy())
        preds, gold = np.concatenate(preds), np.concatenate(gold)
        return metrics.accuracy_score(gold, preds), metrics.f1_score(gold, preds, average="macro")

    def fit(self):
        start = time.time()
        for epoch in range(self.config.num_epochs):
            train_loss = self.train_epoch(epoch)
            self.scheduler.step()
            acc, f1 = self.validate()
            lr = self.optimizer.param_groups[0]["lr"]
            print(f"Epoch [{epoch + 1}/{self.config.num_epochs}] lr {lr:.2e} train_loss {train_loss:.4f} "
                  f"dev_acc {acc:.4f} dev_f1 {f1:.4f} time {time.time() - start:.0f}s")
            if f1 > self.best_f1:
                self.best_f1 = f1
                torch.save(self.model.state_dict(), self.config.save_path)
