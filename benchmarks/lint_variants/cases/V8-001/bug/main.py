import argparse
import logging
import os

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T

from models import MODELS
from pruning import evaluate, finetune, global_magnitude_prune, make_permanent, schedule, sparsity

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
logger = logging.getLogger("prune")


def get_args():
    p = argparse.ArgumentParser(description="Iterative magnitude pruning on CIFAR-10")
    p.add_argument("--arch", default="resnet20", choices=list(MODELS))
    p.add_argument("--data", default="./data")
    p.add_argument("--pretrained", required=True)
    p.add_argument("--sparsity", type=float, default=0.9)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--ft-epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default="./checkpoints")
    return p.parse_args()


def loaders(root, batch_size, workers):
    mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(mean, std)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])
    train = torchvision.datasets.CIFAR10(root, train=True, download=True, transform=train_tf)
    test = torchvision.datasets.CIFAR10(root, train=False, download=True, transform=test_tf)
    return (
        torch.utils.data.DataLoader(train, batch_size, shuffle=True, num_workers=workers, pin_memory=True),
        torch.utils.data.DataLoader(test, 256, shuffle=False, num_workers=workers),
    )


def main():
    args = get_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(args.out, exist_ok=True)
    model = MODELS[args.arch]().to(device)
    model.load_state_dict(torch.load(args.pretrained, map_location=device))
    train_loader, test_loader = loaders(args.data, args.batch_size, args.workers)
    criterion = nn.CrossEntropyLoss()

    logger.info("dense accuracy: %.2f", evaluate(model, test_loader, device))
    history = []
    for r, amount in enumerate(schedule(args.sparsity, args.rounds)):
        global_magnitude_prune(model, amount)
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
        finetune(model, train_loader, optimizer, criterion, device, epochs=args.ft_epochs)
        acc = evaluate(model, test_loader, device)
        history.append((sparsity(model), acc))
        logger.info("round %d sparsity %.3f acc %.2f", r, history[-1][0], acc)
        torch.save(model.state_dict(), os.path.join(args.out, f"{args.arch}_round{r}.pt"))

    make_permanent(model)
    torch.save(model.state_dict(), os.path.join(args.out, f"{args.arch}_pruned_final.pt"))
    for s, a in history:
        logger.info("sparsity=%.3f top1=%.2f", s, a)


if __name__ == "__main__":
    main()
