import argparse

import pytorch_lightning as pl
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import MNIST

from gan import GAN


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="./data")
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--max_epochs", type=int, default=50)
    parser.add_argument("--lr", type=float, default=2e-4)
    args = parser.parse_args()

    transform = T.Compose([T.ToTensor(), T.Normalize((0.5,), (0.5,))])
    ds = MNIST(args.data_dir, train=True, download=True, transform=transform)
    dl = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=4, drop_last=True)

    model = GAN(lr=args.lr, batch_size=args.batch_size)
    trainer = pl.Trainer(accelerator="auto", devices=1, max_epochs=args.max_epochs)
    trainer.fit(model, dl)


if __name__ == "__main__":
    main()
