import argparse

import torch
from torchvision import datasets, transforms

from models import ResNetSimCLR
from simclr import SimCLR


class TwoViews:
    def __init__(self, base):
        self.base = base

    def __call__(self, x):
        return self.base(x), self.base(x)


def simclr_transform(size):
    jitter = transforms.ColorJitter(0.8, 0.8, 0.8, 0.2)
    return transforms.Compose([transforms.RandomResizedCrop(size), transforms.RandomHorizontalFlip(),
                               transforms.RandomApply([jitter], p=0.8), transforms.RandomGrayscale(p=0.2),
                               transforms.GaussianBlur(kernel_size=int(0.1 * size) | 1), transforms.ToTensor()])


parser = argparse.ArgumentParser(description="PyTorch SimCLR")
parser.add_argument("--data", default="./datasets")
parser.add_argument("--arch", default="resnet18")
parser.add_argument("--epochs", default=200, type=int)
parser.add_argument("--batch-size", default=256, type=int)
parser.add_argument("--lr", default=3e-4, type=float)
parser.add_argument("--wd", default=1e-4, type=float)
parser.add_argument("--out_dim", default=128, type=int)
parser.add_argument("--temperature", default=0.07, type=float)
parser.add_argument("--log-every-n-steps", default=100, type=int)
parser.add_argument("--fp16-precision", action="store_true")
parser.add_argument("--log-dir", default="runs/simclr")

if __name__ == "__main__":
    args = parser.parse_args()
    args.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = datasets.STL10(args.data, split="unlabeled", download=True, transform=TwoViews(simclr_transform(96)))
    train_loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True,
                                               num_workers=12, pin_memory=True, drop_last=True)
    model = ResNetSimCLR(base_model=args.arch, out_dim=args.out_dim)
    optimizer = torch.optim.Adam(model.parameters(), args.lr, weight_decay=args.wd)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=len(train_loader), eta_min=0)
    SimCLR(model, optimizer, scheduler, args).train(train_loader)
