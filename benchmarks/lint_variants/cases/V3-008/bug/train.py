import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from classifier import ImageClassifier  # noqa: F401  (registers the model)
from registry import MODELS

cfg = dict(
    model=dict(
        type="ImageClassifier",
        backbone=dict(type="resnet18"),
        head=dict(type="LinearClsHead", num_classes=10, in_channels=512,
                  loss=dict(type="CrossEntropyLoss", loss_weight=1.0, label_smooth_val=0.1)),
    ),
    data_root="data/cifar10",
    batch_size=128,
    max_epochs=200,
    lr=0.1,
    val_interval=1,
)


class EvalHook:
    def __init__(self, dataloader, interval=1):
        self.dataloader = dataloader
        self.interval = interval

    def after_train_epoch(self, runner):
        if (runner.epoch + 1) % self.interval:
            return
        runner.model.eval()
        correct = total = 0
        with torch.no_grad():
            for inputs, labels in self.dataloader:
                _, preds = runner.model(inputs.cuda(), mode="predict")
                correct += (preds.cpu() == labels).sum().item()
                total += labels.numel()
        runner.model.train()
        print(f"Epoch(val) [{runner.epoch + 1}] accuracy/top1: {100.0 * correct / total:.2f}")


class EpochBasedRunner:
    def __init__(self, model, optimizer, scheduler, train_dataloader, hooks, max_epochs):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.train_dataloader, self.hooks, self.max_epochs = train_dataloader, hooks, max_epochs
        self.epoch = 0

    def train(self):
        for self.epoch in range(self.max_epochs):
            self.model.train()
            for i, (inputs, labels) in enumerate(self.train_dataloader):
                losses = self.model(inputs.cuda(), labels.cuda(), mode="loss")
                self.optimizer.zero_grad()
                losses["loss"].backward()
                self.optimizer.step()
            self.scheduler.step()
            for hook in self.hooks:
                hook.after_train_epoch(self)


if __name__ == "__main__":
    norm = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
    train_set = datasets.CIFAR10(cfg["data_root"], train=True, download=True, transform=transforms.Compose(
        [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
    val_set = datasets.CIFAR10(cfg["data_root"], train=False, transform=transforms.Compose(
        [transforms.ToTensor(), norm]))
    model = MODELS.build(cfg["model"]).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, cfg["max_epochs"])
    runner = EpochBasedRunner(
        model, optimizer, scheduler,
        DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True, num_workers=4),
        [EvalHook(DataLoader(val_set, batch_size=256), cfg["val_interval"])], cfg["max_epochs"])
    runner.train()
