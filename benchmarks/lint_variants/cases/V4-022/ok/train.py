import pytorch_lightning as pl
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint

from datamodule import HeartDataModule
from model import TabularNet


def main():
    pl.seed_everything(42)
    dm = HeartDataModule("data/heart.csv", batch_size=32)
    dm.setup()
    model = TabularNet(dm.n_features, hidden=64, dropout=0.3, lr=1e-3)
    trainer = pl.Trainer(
        max_epochs=200,
        callbacks=[EarlyStopping(monitor="val_auc", mode="max", patience=20),
                   ModelCheckpoint(monitor="val_auc", mode="max")],
        log_every_n_steps=5,
    )
    trainer.fit(model, datamodule=dm)
    print(trainer.checkpoint_callback.best_model_score)


if __name__ == "__main__":
    main()
