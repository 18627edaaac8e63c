import torch
import torchvision
from pytorch_lightning import Callback


class ImageSampler(Callback):
    def __init__(self, val_samples, num_samples=64, every_n_epochs=1):
        super().__init__()
        self.val_imgs, _ = val_samples
        self.num_samples = num_samples
        self.every_n_epochs = every_n_epochs

    def on_train_epoch_end(self, trainer, pl_module):
        if trainer.current_epoch % self.every_n_epochs != 0:
            return
        imgs = self.val_imgs[: self.num_samples // 2].to(pl_module.device)
        z = torch.randn(self.num_samples, pl_module.hparams.latent_dim, device=pl_module.device)
        pl_module.eval()
        with torch.no_grad():
            recons, _, _ = pl_module(imgs)
            samples = pl_module.decode(z)
        pl_module.train()
        grid_r = torchvision.utils.make_grid(torch.cat([imgs, recons]), nrow=8, normalize=True, value_range=(-1, 1))
        grid_s = torchvision.utils.make_grid(samples, nrow=8, normalize=True, value_range=(-1, 1))
        trainer.logger.experiment.add_image("reconstructions", grid_r, global_step=trainer.global_step)
        trainer.logger.experiment.add_image("samples", grid_s, global_step=trainer.global_step)
