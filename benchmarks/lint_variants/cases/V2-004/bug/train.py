import argparse

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

from lit_module import TextClassifier


def collate(batch):
    tokens = [torch.tensor(t, dtype=torch.long) for t, _ in batch]
    labels = torch.tensor([y for _, y in batch], dtype=torch.long)
    return pad_sequence(tokens, batch_first=True, padding_value=0), labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/sst2.pt")
    parser.add_argument("--batch_size", type=int, default=50)
    parser.add_argument("--max_epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    blob = torch.load(args.data)
    train_dl = DataLoader(blob["train"], batch_size=args.batch_size, shuffle=True,
                          collate_fn=collate, num_workers=2)
    val_dl = DataLoader(blob["dev"], batch_size=args.batch_size, collate_fn=collate)

    model = TextClassifier(len(blob["vocab"]), num_classes=2, lr=args.lr)
    trainer = pl.Trainer(
        max_epochs=args.max_epochs,
        accelerator="auto",
        callbacks=[ModelCheckpoint(monitor="val/acc", mode="max"),
                   EarlyStopping(monitor="val/loss", patience=3)],
    )
    trainer.fit(model, train_dl, val_dl)


if __name__ == "__main__":
    main()
