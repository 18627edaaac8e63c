import argparse
import logging

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from models.wideresnet import build_wideresnet

logger = logging.getLogger(__name__)


def train(args, model, loader, optimizer, scheduler, epoch):
    model.train()
    for batch_idx, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(args.device), targets.to(args.device)
        loss = F.cross_entropy(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if batch_idx % 100 == 0:
            logger.info(f"Train Epoch: {epoch} [{batch_idx}/{len(loader)}] Loss: {loss.item():.4f}")


def test(args, model, loader):
    model.eval()
    loss, correct = 0.0, 0
    with torch.no_grad():
        for inputs, targets in loader:
            inputs, targets = inputs.to(args.device), targets.to(args.device)
            outputs = model(inputs)
            loss += F.cross_entropy(outputs, targets, reduction="sum").item()
            correct += outputs.argmax(1).eq(targets).sum().item()
    n = len(loader.dataset)
    logger.info(f"Test: loss {loss / n:.4f}, acc {100.0 * correct / n:.2f}%")
    return correct / n


def main():
    parser = argparse.ArgumentParser(description="WRN CIFAR-10")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--depth", type=int, default=28)
    parser.add_argument("--widen-factor", type=int, default=10)
    parser.add_argument("--dropout", type=float, default=0.3)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    args.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    norm = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2471, 0.2435, 0.2616))
    train_set = datasets.CIFAR10("./data", train=True, download=True, transform=transforms.Compose(
        [transforms.RandomCrop(32, 4, padding_mode="reflect"), transforms.RandomHorizontalFlip(),
         transforms.ToTensor(), norm]))
    test_set = datasets.CIFAR10("./data", train=False, transform=transforms.Compose([transforms.ToTensor(), norm]))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=4, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=256, num_workers=4)

    model = build_wideresnet(args.depth, args.widen_factor, args.dropout, 10).to(args.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, args.lr, epochs=args.epochs,
                                                    steps_per_epoch=len(train_loader))
    best = 0.0
    for epoch in range(1, args.epochs + 1):
        train(args, model, train_loader, optimizer, scheduler, epoch)
        acc = test(args, model, test_loader)
        if acc > best:
            best = acc
            torch.save(model.state_dict(), "wrn_best.pth")
    logger.info(f"best acc {best:.4f}")


if __name__ == "__main__":
    main()
