import torch
import torch.nn as nn
from tqdm import tqdm


class Trainer:
    def __init__(self, model, optimizer, device, loss_fn=nn.CrossEntropyLoss(), scheduler=None):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.device = device
        self.loss_fn = loss_fn
        self.scheduler = scheduler

    def train_epoch(self, loader):
        self.model.train()
        running = 0.0
        for images, labels in tqdm(loader, leave=False):
            images, labels = images.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            outputs = self.model(images)
            loss = self.loss_fn(outputs, labels)
            loss.backward()
            self.optimizer.step()
            running += loss.item() * images.size(0)
        if self.scheduler is not None:
            self.scheduler.step()
        return running / len(loader.dataset)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct = 0
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            probs = self.model.predict(images)
            correct += (probs.argmax(dim=1) == labels).sum().item()
        return correct / len(loader.dataset)

    def fit(self, train_loader, test_loader, epochs):
        for epoch in range(1, epochs + 1):
            loss = self.train_epoch(train_loader)
            acc = self.evaluate(test_loader)
            print(f"[{epoch:02d}] train_loss={loss:.4f} test_acc={acc:.4f}")
