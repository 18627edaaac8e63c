import pytorch_lightning as pl
import segmentation_models_pytorch as smp
import torch
from torchmetrics import JaccardIndex

from losses import FocalDice


class SegModule(pl.LightningModule):
    def __init__(self, arch="DeepLabV3Plus", encoder="resnet50", num_classes=19, lr=1e-3, max_epochs=100):
        super().__init__()
        self.save_hyperparameters()
        self.net = smp.create_model(arch, encoder_name=encoder, encoder_weights="imagenet", classes=num_classes)
        self.criterion = FocalDice()
        self.val_iou = JaccardIndex(task="multiclass", num_classes=num_classes, ignore_index=255)

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        images, masks = batch
        loss = self.criterion(self(images), masks.long())
        self.log("train/loss", loss, prog_bar=True, on_step=True, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        images, masks = batch
        logits = self(images)
        self.log("val/loss", self.criterion(logits, masks.long()), sync_dist=True)
        self.val_iou.update(logits.argmax(1), masks.long())

    def on_validation_epoch_end(self):
        self.log("val/mIoU", self.val_iou.compute(), prog_bar=True)
        self.val_iou.reset()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=1e-4)
        sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=self.hparams.max_epochs, power=0.9)
        return [opt], [sched]
