import copy
import logging
import math
from pathlib import Path

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from torchvision import transforms as T, utils
from torchvision.datasets import ImageFolder
from tqdm.auto import tqdm

logger = logging.getLogger(__name__)


def cycle(dl):
    while True:
        for data in dl:
            yield data


class EMA:
    def __init__(self, model, beta=0.995, update_every=10):
        self.ema_model = copy.deepcopy(model).eval().requires_grad_(False)
        self.beta = beta
        self.update_every = update_every
        self.step = 0

    @torch.no_grad()
    def update(self, model):
        self.step += 1
        if self.step % self.update_every:
            return
        for p_ema, p in zip(self.ema_model.parameters(), model.parameters()):
            p_ema.lerp_(p.detach(), 1 - self.beta)


class Trainer:
    def __init__(self, diffusion_model, folder, *, train_batch_size=16, gradient_accumulate_every=1,
                 train_lr=1e-4, train_num_steps=100000, ema_decay=0.995, adam_betas=(0.9, 0.99),
                 save_and_sample_every=1000, num_samples=25, results_folder="./results", amp=False,
                 mixed_precision_type="fp16", max_grad_norm=1.0):
        self.accelerator = Accelerator(mixed_precision=mixed_precision_type if amp else "no")
        self.model = diffusion_model
        self.num_samples = num_samples
        self.save_and_sample_every = save_and_sample_every
        self.batch_size = train_batch_size
        self.gradient_accumulate_every = gradient_accumulate_every
        self.train_num_steps = train_num_steps
        self.max_grad_norm = max_grad_norm
        transform = T.Compose([T.Resize(diffusion_model.image_size), T.RandomHorizontalFlip(),
                               T.CenterCrop(diffusion_model.image_size), T.ToTensor()])
        ds = ImageFolder(folder, transform=transform)
        dl = DataLoader(ds, batch_size=train_batch_size, shuffle=True, pin_memory=True, num_workers=4,
                        drop_last=True)
        self.opt = torch.optim.Adam(diffusion_model.parameters(), lr=train_lr, betas=adam_betas)
        if self.accelerator.is_main_process:
            self.ema = EMA(diffusion_model, beta=ema_decay)
            self.ema.ema_model.to(self.accelerator.device)
        self.results_folder = Path(results_folder)
        self.results_folder.mkdir(exist_ok=True)
        self.step = 0
        self.model, self.opt, dl = self.accelerator.prepare(self.model, self.opt, dl)
        self.dl = cycle(dl)

    def save(self, milestone):
        if not self.accelerator.is_local_main_process:
            return
        data = {"step": self.step, "model": self.accelerator.get_state_dict(self.model),
                "opt": self.opt.state_dict(), "ema": self.ema.ema_model.state_dict()}
        torch.save(data, str(self.results_folder / f"model-{milestone}.pt"))

    def load(self, milestone):
        data = torch.load(str(self.results_folder / f"model-{milestone}.pt"), map_location=self.accelerator.device)
        self.accelerator.unwrap_model(self.model).load_state_dict(data["model"])
        self.step = data["step"]
        self.opt.load_state_dict(data["opt"])
        if self.accelerator.is_main_process:
            self.ema.ema_model.load_state_dict(data["ema"])

    def train(self):
        accelerator = self.accelerator
        device = accelerator.device
        self.model.train()
        with tqdm(initial=self.step, total=self.train_num_steps, disable=not accelerator.is_main_process) as pbar:
            while self.step < self.train_num_steps:
                total_loss = 0.0
                for _ in range(self.gradient_accumulate_every):
                    data, _ = next(self.dl)
                    with accelerator.autocast():
                        loss = self.model(data.to(device))
                        loss = loss / self.gradient_accumulate_every
                        total_loss += loss.item()
                    accelerator.backward(loss)

                pbar.set_description(f"loss: {total_loss:.4f}")
                accelerator.wait_for_everyone()
                accelerator.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)
                self.opt.step()
                self.opt.zero_grad()
                accelerator.wait_for_everyone()

                self.step += 1
                if accelerator.is_main_process:
                    self.ema.update(self.model)
                    if self.step != 0 and self.step % self.save_and_sample_every == 0:
                        milestone = self.step // self.save_and_sample_every
                        images = self.ema.ema_model.ddim_sample(batch_size=self.num_samples)
                        utils.save_image(images, str(self.results_folder / f"sample-{milestone}.png"),
                                         nrow=int(math.sqrt(self.num_samples)))
                        self.save(milestone)
                pbar.update(1)
        accelerator.print("training complete")
