import argparse

import torch
from torch.utils.data import DataLoader
from torchvision.datasets import Cityscapes

from losses import build_criterion
from model import SegModel
from transforms import SegTrainTransform, SegEvalTransform


def fast_hist(pred, label, n):
    k = label != 255
    return torch.bincount(n * label[k] + pred[k], minlength=n * n).reshape(n, n)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="./datasets/cityscapes")
    parser.add_argument("--loss", default="focal")
    parser.add_argument("--gamma", type=float, default=2.0)
    parser.add_argument("--ignore_index", type=int, default=255)
    parser.add_argument("--epochs", type=int, default=120)
    parser.add_argument("--bs", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.01)
    cfg = parser.parse_args()

    device = torch.device("cuda")
    train_set = Cityscapes(cfg.root, split="train", target_type="semantic", transforms=SegTrainTransform(768))
    val_set = Cityscapes(cfg.root, split="val", target_type="semantic", transforms=SegEvalTransform())
    train_loader = DataLoader(train_set, batch_size=cfg.bs, shuffle=True, num_workers=8, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=1, num_workers=4)

    model = SegModel(num_classes=19).to(device)
    criterion = build_criterion(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=1e-4)
    max_iter = cfg.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=max_iter, power=0.9)

    for epoch in range(cfg.epochs):
        model.train()
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device).long()
            probs = model(images)
            loss = criterion(probs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()

        model.eval()
        hist = torch.zeros(19, 19, dtype=torch.long, device=device)
        with torch.no_grad():
            for images, labels in val_loader:
                images, labels = images.to(device), labels.to(device).long()
                pred = model(images).argmax(1)
                hist += fast_hist(pred.flatten(), labels.flatten(), 19)
        iou = hist.diag().float() / (hist.sum(0) + hist.sum(1) - hist.diag()).float().clamp(min=1)
        print(f"epoch {epoch}: loss {loss.item():.4f} mIoU {iou.mean().item():.4f}")
        torch.save(model.state_dict(), "checkpoints/deeplabv3_latest.pth")


if __name__ == "__main__":
    main()
