import pytorch_lightning as pl
from pytorch_lightning.callbacks import ModelCheckpoint
from pytorch_lightning.loggers import TensorBoardLogger
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from callbacks import ImageSampler
from vae import VAE

tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,) * 3, (0.5,) * 3)])
train_ds = datasets.CIFAR10("data", train=True, download=True, transform=tf)
val_ds = datasets.CIFAR10("data", train=False, download=True, transform=tf)
train_dl = DataLoader(train_ds, batch_size=256, shuffle=True, num_workers=8, drop_last=True)
val_dl = DataLoader(val_ds, batch_size=256, num_workers=8)

val_batch = next(iter(DataLoader(val_ds, batch_size=64, shuffle=True)))
model = VAE(latent_dim=128)
trainer = pl.Trainer(
    max_epochs=100,
    logger=TensorBoardLogger("lightning_logs", name="vae_cifar10"),
    callbacks=[ImageSampler(val_batch), ModelCheckpoint(monitor="val_loss")],
)
trainer.fit(model, train_dl, val_dl)
