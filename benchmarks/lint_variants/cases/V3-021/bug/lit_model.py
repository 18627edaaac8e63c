import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchmetrics

from layers import PositionalEncoding, TransformerEncoderLayer


class TextTransformerClassifier(pl.LightningModule):
    def __init__(self, vocab_size, num_classes, embed_dim=256, num_layers=4, num_heads=8,
                 dropout=0.1, lr=3e-4, pad_idx=0):
        super().__init__()
        self.save_hyperparameters()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_idx)
        self.pos = PositionalEncoding(embed_dim)
        self.layers = nn.ModuleList([TransformerEncoderLayer(embed_dim, num_heads, 4 * embed_dim, dropout)
                                     for _ in range(num_layers)])
        self.norm = nn.LayerNorm(embed_dim)
        self.classifier = nn.Linear(embed_dim, num_classes)
        self.val_acc = torchmetrics.Accuracy(task="multiclass", num_classes=num_classes)

    def forward(self, tokens):
        mask = tokens.eq(self.hparams.pad_idx)
        x = self.pos(self.embed(tokens))
        for layer in self.layers:
            x = layer(x, mask)
        x = self.norm(x).masked_fill(mask.unsqueeze(-1), 0.0)
        pooled = x.sum(1) / (~mask).sum(1, keepdim=True).clamp(min=1)
        return self.classifier(pooled)

    def training_step(self, batch, batch_idx):
        loss = F.cross_entropy(self(batch["tokens"]), batch["label"])
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        logits = self(batch["tokens"])
        self.log("val_loss", F.cross_entropy(logits, batch["label"]), prog_bar=True)
        self.val_acc(logits, batch["label"])
        self.log("val_acc", self.val_acc, prog_bar=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=0.01)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=self.hparams.lr,
                                                    total_steps=self.trainer.estimated_stepping_batches)
        return [opt], [{"scheduler": sched, "interval": "step"}]
