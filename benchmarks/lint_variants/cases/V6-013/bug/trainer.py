import torch
import torch.distributed as dist
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader, rank, epochs):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.rank = rank
        self.epochs = epochs
        self.device = torch.device("cuda", rank)

    def train_epoch(self, epoch):
        self.model.train()
        for i, (feats, targets) in enumerate(self.train_loader):
            feats, targets = feats.to(self.device), targets.to(self.device)
            loss = F.cross_entropy(self.model(feats.unsqueeze(1)), targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if self.rank == 0 and i % 50 == 0:
                print(f"[{epoch}] {i}/{len(self.train_loader)} loss={loss.item():.4f}")

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        correct = torch.zeros(2, device=self.device)
        for feats, targets in self.val_loader:
            feats, targets = feats.to(self.device), targets.to(self.device)
            pred = self.model(feats.unsqueeze(1)).argmax(1)
            correct[0] += (pred == targets).sum()
            correct[1] += targets.numel()
        dist.all_reduce(correct)
        return (correct[0] / correct[1]).item()

    def fit(self):
        for epoch in range(self.epochs):
            self.train_epoch(epoch)
            acc = self.validate()
            if self.rank == 0:
                print(f"epoch {epoch} val acc {acc:.4f}")
                torch.save(self.model.module.state_dict(), "kws_resnet.pt")
