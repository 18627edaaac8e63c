import argparse

import pytorch_lightning as pl
from pytorch_lightning.callbacks import LearningRateMonitor, ModelCheckpoint
from torch.utils.data import DataLoader

from episodes import EpisodicBatchSampler, MiniImageNet
from protonet import ProtoNetModule


def episodic_loader(root, split, way, shot, query, episodes, workers, seed=None):
    ds = MiniImageNet(root, split)
    sampler = EpisodicBatchSampler(ds.labels, way, shot, query, episodes, seed=seed)
    return DataLoader(ds, batch_sampler=sampler, num_workers=workers, pin_memory=True)


def main():
    parser = argparse.ArgumentParser(description="Prototypical Networks on miniImageNet")
    parser.add_argument("--data", default="data/miniImageNet")
    parser.add_argument("--backbone", default="conv4", choices=["conv4", "resnet12"])
    parser.add_argument("--way", type=int, default=5)
    parser.add_argument("--test-way", type=int, default=5)
    parser.add_argument("--shot", type=int, default=5)
    parser.add_argument("--query", type=int, default=15)
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--max-epochs", type=int, default=200)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--no-learn-scale", action="store_true")
    args = parser.parse_args()

    pl.seed_everything(0)
    model = ProtoNetModule(args.backbone, args.way, args.shot, args.query, args.lr,
                           learn_scale=not args.no_learn_scale)
    train_dl = episodic_loader(args.data, "train", args.way, args.shot, args.query, args.episodes, args.workers)
    val_dl = episodic_loader(args.data, "val", args.test_way, args.shot, args.query, 600, args.workers, seed=1)
    ckpt = ModelCheckpoint(monitor="val/acc", mode="max", save_last=True, filename="protonet-{epoch:03d}")
    trainer = pl.Trainer(max_epochs=args.max_epochs, accelerator="auto", devices=1,
                         callbacks=[ckpt, LearningRateMonitor()], log_every_n_steps=25)
    trainer.fit(model, train_dl, val_dl)
    test_dl = episodic_loader(args.data, "test", args.test_way, args.shot, args.query, 2000, args.workers, seed=2)
    trainer.test(model, test_dl, ckpt_path="best")


if __name__ == "__main__":
    main()
