import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchmetrics.functional import accuracy

from backbones import load_pretrained


class FrozenEncoderClassifier(nn.Module):
    def __init__(self, backbone, feat_dim=512, num_classes=10):
        super().__init__()
        self.backbone = backbone
        for p in self.backbone.parameters():
            p.requires_grad = False
        self.fc = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        with torch.no_grad():
            feats = self.backbone(x).flatten(1)
        return self.fc(feats).softmax(dim=1)


class LinearEval(pl.LightningModule):
    def __init__(self, ckpt_path, num_classes=10, lr=0.1, max_epochs=100):
        super().__init__()
        self.save_hyperparameters()
        self.model = FrozenEncoderClassifier(load_pretrained(ckpt_path), num_classes=num_classes)

    def forward(self, x):
        return self.model(x)

    def on_train_epoch_start(self):
        self.model.backbone.eval()

    def training_step(self, batch, batch_idx):
        x, y = batch
        out = self(x)
        loss = F.cross_entropy(out, y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        out = self(x)
        self.log("val_loss", F.cross_entropy(out, y))
        self.log("val_acc", accuracy(out.argmax(1), y, task="multiclass", num_classes=self.hparams.num_classes), prog_bar=True)

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.model.fc.parameters(), lr=self.hparams.lr, momentum=0.9, weight_decay=0.0)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, self.hparams.max_epochs)
        return [opt], [sched]
