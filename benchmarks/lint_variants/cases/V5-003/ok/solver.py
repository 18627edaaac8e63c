import torch
import torch.nn.functional as F


class Solver:
    def __init__(self, model, train_loader, valid_loader, args):
        self.model = model
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.args = args
        self.device = torch.device(args.device)
        self.model.to(self.device)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-3)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=args.lr_step, gamma=0.1)

    def train_epoch(self, epoch):
        self.model.train()
        total, n = 0.0, 0
        for feats, labels in self.train_loader:
            feats, labels = feats.to(self.device), labels.to(self.device)
            logits = self.model(feats)
            loss = F.cross_entropy(logits, labels)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item() * labels.size(0)
            n += labels.size(0)
        self.scheduler.step()
        return total / n

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        correct, n = 0, 0
        for feats, labels in self.valid_loader:
            feats, labels = feats.to(self.device), labels.to(self.device)
            probs = self.model.predict(feats)
            correct += (probs.argmax(-1) == labels).sum().item()
            n += labels.size(0)
        return correct / n

    def fit(self):
        best = 0.0
        for epoch in range(self.args.epochs):
            loss = self.train_epoch(epoch)
            acc = self.validate()
            print(f"[{epoch:03d}] train_loss={loss:.4f} val_acc={acc:.4f}")
            if acc > best:
                best = acc
                torch.save(self.model.state_dict(), self.args.ckpt)
        return best
