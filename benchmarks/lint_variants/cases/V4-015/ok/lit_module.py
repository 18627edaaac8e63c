import pytorch_lightning as pl
import torch
import torch.nn.functional as F
import torchmetrics

from vit import VisionTransformer


class LitViT(pl.LightningModule):
    def __init__(self, lr=1e-3, weight_decay=5e-2, warmup_epochs=5, max_epochs=200, label_smoothing=0.1):
        super().__init__()
        self.save_hyperparameters()
        self.model = VisionTransformer()
        self.train_acc = torchmetrics.Accuracy(task="multiclass", num_classes=10)
        self.val_acc = torchmetrics.Accuracy(task="multiclass", num_classes=10)

    def forward(self, x):
        return self.model(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y, label_smoothing=self.hparams.label_smoothing)
        self.train_acc(logits, y)
        self.log("train/loss", loss, prog_bar=True)
        self.log("train/acc", self.train_acc, on_epoch=True, on_step=False)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.val_acc(logits, y)
        self.log("val/loss", F.cross_entropy(logits, y), sync_dist=True)
        self.log("val/acc", self.val_acc, prog_bar=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
        warm = torch.optim.lr_scheduler.LinearLR(opt, 0.01, 1.0, total_iters=self.hparams.warmup_epochs)
        cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, self.hparams.max_epochs - self.hparams.warmup_epochs)
        sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], [self.hparams.warmup_epochs])
        return {"optimizer": opt, "lr_scheduler": sched}
