import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F

from backbone import BACKBONES
from episodes import split_episode


class PrototypicalLoss(nn.Module):
    """Negative squared Euclidean distance to class prototypes, scaled by a learned temperature (TADAM)."""

    def __init__(self, init_scale=10.0, learn_scale=True):
        super().__init__()
        self.log_scale = nn.Parameter(torch.tensor(init_scale).log(), requires_grad=learn_scale)

    def logits(self, support_z, query_z, n_way, n_shot):
        prototypes = support_z.view(n_way, n_shot, -1).mean(dim=1)
        dists = torch.cdist(query_z, prototypes).pow(2)
        return -self.log_scale.exp() * dists / support_z.size(-1)

    def forward(self, support_z, query_z, query_labels, n_way, n_shot):
        logits = self.logits(support_z, query_z, n_way, n_shot)
        loss = F.cross_entropy(logits, query_labels)
        acc = (logits.argmax(-1) == query_labels).float().mean()
        return loss, acc


class ProtoNetModule(pl.LightningModule):
    def __init__(self, backbone="conv4", n_way=5, n_shot=5, n_query=15, lr=1e-3, step_size=20, learn_scale=True):
        super().__init__()
        self.save_hyperparameters()
        self.encoder = BACKBONES[backbone]()
        self.loss_fn = PrototypicalLoss(learn_scale=learn_scale)

    def _episode(self, batch):
        images, _ = batch
        hp = self.hparams
        support, query, labels = split_episode(images, hp.n_way, hp.n_shot, hp.n_query)
        z = self.encoder(torch.cat([support, query]))
        n_support = support.size(0)
        return self.loss_fn(z[:n_support], z[n_support:], labels.to(self.device), hp.n_way, hp.n_shot)

    def training_step(self, batch, batch_idx):
        loss, acc = self._episode(batch)
        self.log_dict({"train/loss": loss, "train/acc": acc, "scale": self.loss_fn.log_scale.exp()}, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        loss, acc = self._episode(batch)
        self.log_dict({"val/loss": loss, "val/acc": acc}, prog_bar=True)

    def test_step(self, batch, batch_idx):
        _, acc = self._episode(batch)
        self.log("test/acc", acc)

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.encoder.parameters(), lr=self.hparams.lr)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=self.hparams.step_size, gamma=0.5)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "epoch"}}
