import pytorch_lightning as pl
from pytorch_lightning.callbacks import ModelCheckpoint

from datamodule import AGNewsDataModule
from lit_model import TextTransformerClassifier

if __name__ == "__main__":
    pl.seed_everything(42)
    dm = AGNewsDataModule(batch_size=64, max_len=256)
    dm.setup()
    model = TextTransformerClassifier(vocab_size=dm.vocab_size, num_classes=4)
    trainer = pl.Trainer(max_epochs=10, accelerator="auto", precision="16-mixed",
                         callbacks=[ModelCheckpoint(monitor="val_acc", mode="max")])
    trainer.fit(model, datamodule=dm)
    trainer.validate(model, datamodule=dm, ckpt_path="best")
