import pytorch_lightning as pl
import torchvision.transforms as T
from pytorch_lightning.callbacks import LearningRateMonitor, ModelCheckpoint
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10

from lit_module import LitViT

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)

if __name__ == "__main__":
    pl.seed_everything(0)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(),
                          T.AutoAugment(T.AutoAugmentPolicy.CIFAR10), T.ToTensor(), T.Normalize(MEAN, STD)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    train_dl = DataLoader(CIFAR10("data", True, train_tf, download=True), batch_size=128,
                          shuffle=True, num_workers=8, drop_last=True)
    val_dl = DataLoader(CIFAR10("data", False, test_tf, download=True), batch_size=256, num_workers=8)

    model = LitViT(max_epochs=200)
    trainer = pl.Trainer(max_epochs=200, accelerator="gpu", devices=1, precision="16-mixed",
                         callbacks=[ModelCheckpoint(monitor="val/acc", mode="max"),
                                    LearningRateMonitor("epoch")])
    trainer.fit(model, train_dl, val_dl)
