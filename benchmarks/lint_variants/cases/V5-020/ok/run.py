import pytorch_lightning as pl

from data_provider import ETTDataModule
from lit_model import LitForecaster

if __name__ == "__main__":
    pl.seed_everything(2021)
    dm = ETTDataModule(root="./dataset/ETT-small", data="ETTh1.csv", seq_len=336, pred_len=96, batch_size=128)
    model = LitForecaster(seq_len=336, pred_len=96, lr=1e-4)
    trainer = pl.Trainer(max_epochs=100, accelerator="auto", devices=1,
                         callbacks=[pl.callbacks.EarlyStopping("val_mse", patience=10)])
    trainer.fit(model, datamodule=dm)
    trainer.test(model, datamodule=dm, ckpt_path="best")
