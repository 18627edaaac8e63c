import argparse

import pytorch_lightning as pl
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10

from linear_probe import LinearEval

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained", required=True)
    parser.add_argument("--data_dir", default="./data")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch_size", type=int, default=256)
    args = parser.parse_args()
    train_tf = T.Compose([T.RandomResizedCrop(32), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    train_loader = DataLoader(CIFAR10(args.data_dir, train=True, transform=train_tf, download=True),
                              batch_size=args.batch_size, shuffle=True, num_workers=8)
    val_loader = DataLoader(CIFAR10(args.data_dir, train=False, transform=test_tf),
                            batch_size=args.batch_size, num_workers=8)
    model = LinearEval(args.pretrained, max_epochs=args.epochs)
    trainer = pl.Trainer(max_epochs=args.epochs, accelerator="auto", devices=1)
    trainer.fit(model, train_loader, val_loader)
