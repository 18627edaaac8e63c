import argparse
import logging

import torch
from PIL import Image
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from engine import Checkpointer, LRSchedulerCallback, ProgressLogger, StyleTrainer
from losses import PerceptualLoss
from transformer_net import TransformerNet

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")


def parse():
    p = argparse.ArgumentParser(description="fast neural style training")
    p.add_argument("--dataset", required=True, help="COCO train2014 as ImageFolder root")
    p.add_argument("--style-image", required=True)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr-milestones", type=int, nargs="+", default=[2, 3], help="epochs at which lr is divided by 10")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--image-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--content-weight", type=float, default=1e5)
    p.add_argument("--style-weight", type=float, default=1e10)
    p.add_argument("--save-dir", default="saved_models")
    return p.parse_args()


def main():
    args = parse()
    torch.manual_seed(42)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tf = transforms.Compose([
        transforms.Resize(args.image_size), transforms.CenterCrop(args.image_size),
        transforms.ToTensor(), transforms.Lambda(lambda x: x.mul(255)),
    ])
    loader = DataLoader(datasets.ImageFolder(args.dataset, tf), batch_size=args.batch_size, shuffle=True,
                        num_workers=4, drop_last=True)
    style = transforms.Compose([transforms.ToTensor(), transforms.Lambda(lambda x: x.mul(255))])(
        Image.open(args.style_image).convert("RGB"))
    style = style.repeat(args.batch_size, 1, 1, 1).to(device)

    model = TransformerNet()
    criterion = PerceptualLoss(style, args.content_weight, args.style_weight)
    optimizer = torch.optim.Adam(model.parameters(), args.lr)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.lr_milestones, gamma=0.1)
    trainer = StyleTrainer(model, criterion, optimizer, scheduler, device=device,
                           callbacks=[ProgressLogger(), LRSchedulerCallback(), Checkpointer(args.save_dir)])
    model = trainer.fit(loader, args.epochs)
    model.eval().cpu()
    torch.save(model.state_dict(), f"{args.save_dir}/final.pth")


if __name__ == "__main__":
    main()
