import argparse

import pytorch_lightning as pl
from pytorch_lightning.callbacks import ModelCheckpoint, LearningRateMonitor
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from lit_module import CIFARLitModule


def get_loaders(data_dir, batch_size, num_workers):
    mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
    train_tf = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean, std),
    ])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, std)])
    train_set = datasets.CIFAR10(data_dir, train=True, download=True, transform=train_tf)
    val_set = datasets.CIFAR10(data_dir, train=False, download=True, transform=test_tf)
    return (DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=num_workers),
            DataLoader(val_set, batch_size=batch_size, num_workers=num_workers))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="./data")
    parser.add_argument("--backbone", default="simple_cnn")
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    pl.seed_everything(42)
    train_loader, val_loader = get_loaders(args.data_dir, args.batch_size, 4)
    module = CIFARLitModule(backbone=args.backbone, lr=args.lr, max_epochs=args.epochs)
    trainer = pl.Trainer(
        max_epochs=args.epochs,
        accelerator="auto",
        callbacks=[ModelCheckpoint(monitor="val/acc", mode="max"), LearningRateMonitor()],
    )
    trainer.fit(module, train_loader, val_loader)
