import argparse

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T

from vit import VisionTransformer


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad(), torch.autocast(device_type=device.type, dtype=torch.bfloat16):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.size(0)
    return 100.0 * correct / total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--bs", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--wd", type=float, default=5e-2)
    args = p.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.AutoAugment(
        T.AutoAugmentPolicy.CIFAR10), T.ToTensor(), T.Normalize(mean, std)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])
    train_dl = torch.utils.data.DataLoader(torchvision.datasets.CIFAR10("data", True, train_tf, download=True),
                                           batch_size=args.bs, shuffle=True, num_workers=8, drop_last=True)
    test_dl = torch.utils.data.DataLoader(torchvision.datasets.CIFAR10("data", False, test_tf, download=True),
                                          batch_size=512, num_workers=8)

    model = VisionTransformer().to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wd)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_dl:
            x, y = x.to(device), y.to(device)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                loss = criterion(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        scheduler.step()
        print(f"epoch {epoch}: loss {loss.item():.3f} test acc {evaluate(model, test_dl, device):.2f}")
    torch.save(model.state_dict(), "vit_cifar10.pth")


if __name__ == "__main__":
    main()
