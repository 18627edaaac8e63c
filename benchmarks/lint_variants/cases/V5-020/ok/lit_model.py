import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from layers import PatchTST


class LitForecaster(pl.LightningModule):
    def __init__(self, seq_len=336, pred_len=96, lr=1e-4, **model_kwargs):
        super().__init__()
        self.save_hyperparameters()
        self.model = PatchTST(seq_len, pred_len, **model_kwargs)

    def forward(self, x):
        return self.model(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self(x), y)
        self.log("train_mse", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        pred = self(x)
        self.log("val_mse", F.mse_loss(pred, y), prog_bar=True)
        self.log("val_mae", F.l1_loss(pred, y))

    def test_step(self, batch, batch_idx):
        x, y = batch
        pred = self(x)
        self.log("test_mse", F.mse_loss(pred, y))
        self.log("test_mae", F.l1_loss(pred, y))

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=self.hparams.lr,
                                                    total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}
