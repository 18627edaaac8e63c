import logging
import math
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


class ClipLoss(nn.Module):
    def __init__(self, rank=0, world_size=1):
        super().__init__()
        self.rank = rank
        self.world_size = world_size

    def gather(self, image_features, text_features):
        if self.world_size == 1:
            return image_features, text_features
        all_img = [torch.zeros_like(image_features) for _ in range(self.world_size)]
        all_txt = [torch.zeros_like(text_features) for _ in range(self.world_size)]
        dist.all_gather(all_img, image_features)
        dist.all_gather(all_txt, text_features)
        all_img[self.rank] = image_features
        all_txt[self.rank] = text_features
        return torch.cat(all_img), torch.cat(all_txt)

    def forward(self, image_features, text_features, logit_scale):
        all_img, all_txt = self.gather(image_features, text_features)
        logits_per_image = logit_scale * image_features @ all_txt.T
        logits_per_text = logit_scale * text_features @ all_img.T
        n = image_features.shape[0]
        labels = torch.arange(n, device=image_features.device) + n * self.rank
        return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2


def cosine_lr(optimizer, base_lr, warmup_length, steps):
    def _lr_adjuster(step):
        if step < warmup_length:
            lr = base_lr * (step + 1) / warmup_length
        else:
            e = step - warmup_length
            lr = 0.5 * (1 + math.cos(math.pi * e / (steps - warmup_length))) * base_lr
        for group in optimizer.param_groups:
            group["lr"] = lr
        return lr
    return _lr_adjuster


def unwrap_model(model):
    return model.module if hasattr(model, "module") else model


def train_one_epoch(model, data, loss, epoch, optimizer, scaler, scheduler, args):
    device = torch.device(args.device)
    model.train()
    dataloader = data["train"].dataloader
    num_batches_per_epoch = dataloader.num_batches
    end = time.time()
    for i, (images, texts) in enumerate(dataloader):
        step = num_batches_per_epoch * epoch + i
        scheduler(step)
        images = images.to(device=device, non_blocking=True)
        texts = texts.to(device=device, non_blocking=True)
        data_time = time.time() - end
        optimizer.zero_grad()
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=args.precision == "amp_bf16"):
            image_features, text_features, logit_scale = model(images, texts)
            total_loss = loss(image_features, text_features, logit_scale)
        scaler.scale(total_loss).backward()
        if args.grad_clip_norm is not None:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip_norm, norm_type=2.0)
        scaler.step(optimizer)
        scaler.update()
        with torch.no_grad():
            unwrap_model(model).logit_scale.clamp_(0, math.log(100))
        if args.rank == 0 and (i % args.log_every_n_steps == 0 or i + 1 == num_batches_per_epoch):
            logging.info(f"Train Epoch: {epoch} [{i + 1}/{num_batches_per_epoch}] Loss: {total_loss.item():.4f} "
                         f"Data: {data_time:.3f}s Batch: {time.time() - end:.3f}s "
                         f"LR: {optimizer.param_groups[0]['lr']:.3e} Scale: {logit_scale.item():.2f}")
        end = time.time()
