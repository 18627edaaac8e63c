import argparse

import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms

from ema import ModelEmaV2

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/")
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--batch-size", type=int, default=256)
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--model-ema-decay", type=float, default=0.9998)


@torch.no_grad()
def validate(model, loader, device):
    correct = total = 0
    for images, target in loader:
        output = model(images.to(device, non_blocking=True))
        correct += (output.argmax(dim=1).cpu() == target).sum().item()
        total += target.size(0)
    return 100.0 * correct / total


def main():
    args = parser.parse_args()
    device = torch.device("cuda")
    norm = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_set = torchvision.datasets.ImageFolder(args.data + "train", transforms.Compose(
        [transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
         transforms.ToTensor(), norm]))
    val_set = torchvision.datasets.ImageFolder(args.data + "val", transforms.Compose(
        [transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), norm]))
    train_loader = DataLoader(train_set, args.batch_size, shuffle=True, num_workers=16,
                              pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, args.batch_size, num_workers=16, pin_memory=True)

    model = torchvision.models.mobilenet_v3_large(dropout=0.2).to(device)
    model_ema = ModelEmaV2(model, decay=args.model_ema_decay)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=4e-5)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    best_acc = 0.0
    for epoch in range(args.epochs):
        model.train()
        for images, target in train_loader:
            images, target = images.to(device, non_blocking=True), target.to(device)
            loss = criterion(model(images), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            model_ema.update(model)
        scheduler.step()

        model.eval()
        acc = validate(model, val_loader, device)
        ema_acc = validate(model_ema.module, val_loader, device)
        print(f"epoch {epoch}: acc {acc:.2f} ema_acc {ema_acc:.2f}")
        if ema_acc > best_acc:
            best_acc = ema_acc
            torch.save(model_ema.module.state_dict(), "model_best_ema.pth")


if __name__ == "__main__":
    main()
