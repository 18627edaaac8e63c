import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl
from torchmetrics import AUROC


class TabularNet(pl.LightningModule):
    def __init__(self, cat_cardinalities, n_cont, emb_dim=16, hidden=(512, 256), dropout=0.3, lr=2e-3):
        super().__init__()
        self.save_hyperparameters()
        self.embeddings = nn.ModuleList([nn.Embedding(card + 1, min(emb_dim, (card + 1) // 2 + 1))
                                         for card in cat_cardinalities])
        emb_out = sum(e.embedding_dim for e in self.embeddings)
        self.bn_cont = nn.BatchNorm1d(n_cont)
        layers, d = [], emb_out + n_cont
        for h in hidden:
            layers += [nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU()]
            d = h
        self.mlp = nn.Sequential(*layers)
        self.out = nn.Linear(d, 1)
        self.val_auc = AUROC(task="binary")

    def forward(self, x_cat, x_cont):
        emb = torch.cat([e(x_cat[:, i]) for i, e in enumerate(self.embeddings)], dim=1)
        x = torch.cat([emb, self.bn_cont(x_cont)], dim=1)
        x = self.mlp(x)
        x = nn.Dropout(self.hparams.dropout)(x)
        return self.out(x).squeeze(-1)

    def training_step(self, batch, batch_idx):
        x_cat, x_cont, y = batch
        loss = F.binary_cross_entropy_with_logits(self(x_cat, x_cont), y.float())
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x_cat, x_cont, y = batch
        logits = self(x_cat, x_cont)
        self.log("val_loss", F.binary_cross_entropy_with_logits(logits, y.float()), prog_bar=True)
        self.val_auc.update(torch.sigmoid(logits), y)
        self.log("val_auc", self.val_auc, prog_bar=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=1e-5)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=2)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "monitor": "val_auc"}}
