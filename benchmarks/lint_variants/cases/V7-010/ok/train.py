import argparse
import json
import logging
import os

import torch

from diffusion import GaussianDiffusion
from trainer import Trainer
from unet import Unet


def get_args():
    p = argparse.ArgumentParser(description="DDPM/DDIM training on an image folder")
    p.add_argument("--data", required=True, help="ImageFolder root")
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--dim-mults", type=int, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--timesteps", type=int, default=1000)
    p.add_argument("--sampling-timesteps", type=int, default=250)
    p.add_argument("--objective", choices=["pred_noise", "pred_x0"], default="pred_noise")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--grad-accum", type=int, default=2)
    p.add_argument("--lr", type=float, default=8e-5)
    p.add_argument("--steps", type=int, default=700000)
    p.add_argument("--ema-decay", type=float, default=0.995)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--results", default="./results")
    p.add_argument("--resume", type=int, default=None, help="milestone to resume from")
    return p.parse_args()


def main():
    args = get_args()
    logging.basicConfig(level=logging.INFO)
    os.makedirs(args.results, exist_ok=True)
    with open(os.path.join(args.results, "args.json"), "w") as f:
        json.dump(vars(args), f, indent=2)
    torch.backends.cuda.matmul.allow_tf32 = True
    model = Unet(dim=args.dim, dim_mults=tuple(args.dim_mults), dropout=args.dropout)
    diffusion = GaussianDiffusion(model, image_size=args.image_size, timesteps=args.timesteps,
                                  sampling_timesteps=args.sampling_timesteps, objective=args.objective)
    trainer = Trainer(diffusion, args.data, train_batch_size=args.batch_size,
                      gradient_accumulate_every=args.grad_accum, train_lr=args.lr, train_num_steps=args.steps,
                      ema_decay=args.ema_decay, amp=args.amp, results_folder=args.results)
    if args.resume is not None:
        trainer.load(args.resume)
    trainer.train()


if __name__ == "__main__":
    main()
