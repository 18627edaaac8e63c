import argparse

import pytorch_lightning as pl
from pytorch_lightning.callbacks import LearningRateMonitor, ModelCheckpoint

from datamodule import CityscapesDataModule
from module import SegModule


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="data/cityscapes")
    parser.add_argument("--encoder", default="resnet50")
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gpus", type=int, default=1)
    args = parser.parse_args()
    pl.seed_everything(42)
    dm = CityscapesDataModule(args.data_dir, batch_size=args.batch_size)
    model = SegModule(encoder=args.encoder, lr=args.lr, max_epochs=args.epochs)
    trainer = pl.Trainer(max_epochs=args.epochs, accelerator="gpu", devices=args.gpus, precision="16-mixed",
                         callbacks=[ModelCheckpoint(monitor="val/mIoU", mode="max"),
                                    LearningRateMonitor("epoch")])
    trainer.fit(model, datamodule=dm)


if __name__ == "__main__":
    main()
