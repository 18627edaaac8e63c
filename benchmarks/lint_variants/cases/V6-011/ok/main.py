import argparse
import os

import torch
from monai.losses import DiceCELoss
from monai.metrics import DiceMetric
from monai.networks.nets import SwinUNETR
from monai.transforms import AsDiscrete

from data_utils import get_loader
from engine import train_one_epoch, val_epoch
from utils import warmup_cosine

parser = argparse.ArgumentParser(description="Swin UNETR segmentation pipeline")
parser.add_argument("--data_dir", default="/dataset/dataset0/")
parser.add_argument("--json_list", default="dataset_0.json")
parser.add_argument("--logdir", default="runs/test")
parser.add_argument("--max_epochs", default=300, type=int)
parser.add_argument("--batch_size", default=1, type=int)
parser.add_argument("--optim_lr", default=1e-4, type=float)
parser.add_argument("--warmup_epochs", default=10, type=int)
parser.add_argument("--val_every", default=10, type=int)
parser.add_argument("--out_channels", default=14, type=int)
parser.add_argument("--roi", default=96, type=int)


def main():
    args = parser.parse_args()
    device = torch.device("cuda")
    train_loader, val_loader = get_loader(args)
    model = SwinUNETR(img_size=(args.roi,) * 3, in_channels=1, out_channels=args.out_channels,
                      feature_size=48).to(device)
    loss_func = DiceCELoss(to_onehot_y=True, softmax=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.optim_lr, weight_decay=1e-5)
    steps = len(train_loader)
    lr_scheduler = warmup_cosine(optimizer, args.warmup_epochs * steps, args.max_epochs * steps)
    scaler = torch.cuda.amp.GradScaler()
    dice_metric = DiceMetric(include_background=True, reduction="mean")
    post_label = AsDiscrete(to_onehot=args.out_channels)
    post_pred = AsDiscrete(argmax=True, to_onehot=args.out_channels)
    best = 0.0
    for epoch in range(args.max_epochs):
        train_one_epoch(model, train_loader, optimizer, lr_scheduler, loss_func, scaler, device, epoch)
        if (epoch + 1) % args.val_every == 0:
            dice = val_epoch(model, val_loader, dice_metric, post_label, post_pred, (args.roi,) * 3, device)
            print(f"Epoch {epoch} mean dice {dice:.4f}")
            if dice > best:
                best = dice
                torch.save({"epoch": epoch, "state_dict": model.state_dict()},
                           os.path.join(args.logdir, "model.pt"))


if __name__ == "__main__":
    main()
