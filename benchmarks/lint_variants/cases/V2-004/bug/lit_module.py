import pytorch_lightning as pl
import torch
import torch.nn.functional as F
import torchmetrics

from model import TextCNN


class TextClassifier(pl.LightningModule):
    def __init__(self, vocab_size, num_classes=2, lr=1e-3, weight_decay=0.0):
        super().__init__()
        self.save_hyperparameters()
        self.model = TextCNN(vocab_size, num_classes=num_classes)
        self.train_acc = torchmetrics.Accuracy(task="multiclass", num_classes=num_classes)
        self.val_acc = torchmetrics.Accuracy(task="multiclass", num_classes=num_classes)
        self.train_losses = []

    def forward(self, tokens):
        return self.model(tokens)

    def training_step(self, batch, batch_idx):
        tokens, labels = batch
        logits = self(tokens)
        loss = F.cross_entropy(logits, labels)
        self.train_acc(logits, labels)
        self.train_losses.append(loss)
        return loss

    def on_train_epoch_end(self):
        epoch_loss = torch.stack(self.train_losses).mean()
        self.log("train/loss_epoch", epoch_loss)
        self.log("train/acc", self.train_acc.compute())
        self.train_acc.reset()
        self.train_losses.clear()

    def validation_step(self, batch, batch_idx):
        tokens, labels = batch
        logits = self(tokens)
        loss = F.cross_entropy(logits, labels)
        self.val_acc(logits, labels)
        self.log("val/loss", loss, prog_bar=True)
        self.log("val/acc", self.val_acc, prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr,
                                weight_decay=self.hparams.weight_decay)
