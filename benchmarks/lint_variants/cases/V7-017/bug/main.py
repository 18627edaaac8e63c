import argparse
import logging
import os

import open_clip
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from data import get_data
from train import ClipLoss, cosine_lr, train_one_epoch
from zero_shot import zero_shot_eval


def parse_args():
    p = argparse.ArgumentParser("CLIP fine-tuning")
    p.add_argument("--model", default="ViT-B-32")
    p.add_argument("--pretrained", default="laion2b_s34b_b79k")
    p.add_argument("--train-data", default=None)
    p.add_argument("--val-data", default=None)
    p.add_argument("--imagenet-val", default=None)
    p.add_argument("--csv-img-key", default="filepath")
    p.add_argument("--csv-caption-key", default="title")
    p.add_argument("--csv-separator", default="\t")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=1e-5)
    p.add_argument("--wd", type=float, default=0.1)
    p.add_argument("--warmup", type=int, default=500)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--precision", default="amp_bf16")
    p.add_argument("--grad-clip-norm", type=float, default=None)
    p.add_argument("--log-every-n-steps", type=int, default=100)
    p.add_argument("--zeroshot-frequency", type=int, default=1)
    p.add_argument("--logs", default="./logs")
    p.add_argument("--name", default="clip-ft")
    return p.parse_args()


def init_distributed(args):
    args.distributed = "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1
    if args.distributed:
        dist.init_process_group(backend="nccl")
        args.rank, args.world_size = dist.get_rank(), dist.get_world_size()
        args.local_rank = int(os.environ["LOCAL_RANK"])
        args.device = f"cuda:{args.local_rank}"
        torch.cuda.set_device(args.device)
    else:
        args.rank, args.world_size, args.local_rank = 0, 1, 0
        args.device = "cuda" if torch.cuda.is_available() else "cpu"


def main():
    args = parse_args()
    init_distributed(args)
    logging.basicConfig(level=logging.INFO if args.rank == 0 else logging.WARNING)
    model, preprocess_train, preprocess_val = open_clip.create_model_and_transforms(
        args.model, pretrained=args.pretrained, device=args.device)
    tokenizer = open_clip.get_tokenizer(args.model)
    if args.distributed:
        model = DistributedDataParallel(model, device_ids=[args.local_rank])

    exclude = lambda n, p: p.ndim < 2 or "bn" in n or "ln" in n or "bias" in n or "logit_scale" in n
    named = list(model.named_parameters())
    gain_or_bias = [p for n, p in named if exclude(n, p) and p.requires_grad]
    rest = [p for n, p in named if not exclude(n, p) and p.requires_grad]
    optimizer = torch.optim.AdamW([{"params": gain_or_bias, "weight_decay": 0.0},
                                   {"params": rest, "weight_decay": args.wd}], lr=args.lr, betas=(0.9, 0.98),
                                  eps=1e-6)
    scaler = torch.cuda.amp.GradScaler(enabled=args.precision == "amp")

    data = get_data(args, (preprocess_train, preprocess_val), tokenizer=tokenizer)
    total_steps = data["train"].dataloader.num_batches * args.epochs
    scheduler = cosine_lr(optimizer, args.lr, args.warmup, total_steps)
    loss = ClipLoss(args.rank, args.world_size)
    os.makedirs(os.path.join(args.logs, args.name, "checkpoints"), exist_ok=True)

    for epoch in range(args.epochs):
        if args.rank == 0:
            logging.info(f"Start epoch {epoch}")
        train_one_epoch(model, data, loss, epoch, optimizer, scaler, scheduler, args)
        if args.rank == 0:
            if args.imagenet_val and (epoch + 1) % args.zeroshot_frequency == 0:
                metrics = zero_shot_eval(model, args.imagenet_val, preprocess_val, tokenizer, args)
                logging.info(f"Zero-shot epoch {epoch + 1}: {metrics}")
            ckpt = {"epoch": epoch + 1, "name": args.name, "state_dict": model.state_dict(),
                    "optimizer": optimizer.state_dict()}
            torch.save(ckpt, os.path.join(args.logs, args.name, "checkpoints", f"epoch_{epoch + 1}.pt"))
    if args.distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
