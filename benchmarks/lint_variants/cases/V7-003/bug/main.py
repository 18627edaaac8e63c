import argparse
import json
import logging
import os

import pandas as pd
import timm
import torch
from PIL import Image
from sklearn.model_selection import GroupShuffleSplit
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms as T

from derm_trainer import HAM_CLASSES, DermTrainer

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
logger = logging.getLogger("ham10000")


class HAM10000(Dataset):
    def __init__(self, df: pd.DataFrame, image_dir: str, transform):
        self.paths = [os.path.join(image_dir, f"{i}.jpg") for i in df["image_id"]]
        self.labels = [HAM_CLASSES.index(d) for d in df["dx"]]
        self.transform = transform

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        img = Image.open(self.paths[idx]).convert("RGB")
        return self.transform(img), self.labels[idx]


def build_transforms(size: int):
    norm = T.Normalize([0.763, 0.545, 0.570], [0.141, 0.152, 0.170])
    train_tf = T.Compose([T.RandomResizedCrop(size, scale=(0.7, 1.0)), T.RandomHorizontalFlip(),
                          T.RandomVerticalFlip(), T.ColorJitter(0.2, 0.2, 0.2, 0.05), T.ToTensor(), norm])
    eval_tf = T.Compose([T.Resize(int(size * 1.14)), T.CenterCrop(size), T.ToTensor(), norm])
    return train_tf, eval_tf


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", default="data/HAM10000_metadata.csv")
    p.add_argument("--images", default="data/images")
    p.add_argument("--arch", default="efficientnet_b0")
    p.add_argument("--img-size", type=int, default=384)
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--bs", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--drop-rate", type=float, default=0.3)
    p.add_argument("--out", default="outputs/effb0")
    p.add_argument("--tta", action="store_true")
    args = p.parse_args()

    df = pd.read_csv(args.csv)
    gss = GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=42)
    train_idx, rest_idx = next(gss.split(df, groups=df["lesion_id"]))
    rest = df.iloc[rest_idx]
    val_df, test_df = rest.iloc[: len(rest) // 2], rest.iloc[len(rest) // 2:]
    train_df = df.iloc[train_idx]
    train_tf, eval_tf = build_transforms(args.img_size)
    loaders = {
        "train": DataLoader(HAM10000(train_df, args.images, train_tf), args.bs, shuffle=True, num_workers=8,
                            drop_last=True),
        "val": DataLoader(HAM10000(val_df, args.images, eval_tf), args.bs * 2, num_workers=8),
        "test": DataLoader(HAM10000(test_df, args.images, eval_tf), args.bs * 2, num_workers=8),
    }
    model = timm.create_model(args.arch, pretrained=True, num_classes=len(HAM_CLASSES),
                              drop_rate=args.drop_rate, drop_path_rate=0.2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    counts = [int((train_df["dx"] == c).sum()) for c in HAM_CLASSES]
    device = "cuda" if torch.cuda.is_available() else "cpu"
    trainer = DermTrainer(model, optimizer, scheduler, device=device, out_dir=args.out, max_epochs=args.epochs,
                          grad_clip=1.0, class_counts=counts, tta=args.tta)
    trainer.fit(loaders["train"], loaders["val"])

    state = torch.load(os.path.join(args.out, "best.pt"), map_location=device)
    trainer.model.load_state_dict(state["model"])
    test_metrics = trainer.evaluate(loaders["test"], prefix="test")
    logger.info("test: %s", test_metrics)
    with open(os.path.join(args.out, "test_metrics.json"), "w") as f:
        json.dump(test_metrics, f, indent=2)


if __name__ == "__main__":
    main()
