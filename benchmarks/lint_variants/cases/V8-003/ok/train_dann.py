import argparse
import logging
import math
import os

import torch
import torch.nn.functional as F
from accelerate import Accelerator

from data import build_loaders, domain_labels
from models import DANN

logger = logging.getLogger("dann")


def parse_args():
    p = argparse.ArgumentParser("DANN MNIST -> MNIST-M")
    p.add_argument("--root", default="./data")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=10.0)
    p.add_argument("--output-dir", default="runs/dann")
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, accelerator):
    model.eval()
    correct, total = 0, 0
    for x, y in loader:
        logits, _ = model(x)
        preds, y = accelerator.gather_for_metrics((logits.argmax(-1), y))
        correct += (preds == y).sum().item()
        total += y.numel()
    return correct / max(total, 1)


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO)
    accelerator = Accelerator()
    src_loader, tgt_loader, tgt_test = build_loaders(args.root, args.batch_size)
    model = DANN()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    model, optimizer, src_loader, tgt_loader, tgt_test = accelerator.prepare(
        model, optimizer, src_loader, tgt_loader, tgt_test)

    steps_per_epoch = min(len(src_loader), len(tgt_loader))
    total_steps = args.epochs * steps_per_epoch
    best = 0.0
    for epoch in range(args.epochs):
        model.train()
        for i, ((xs, ys), (xt, _)) in enumerate(zip(src_loader, tgt_loader)):
            p = float(i + epoch * steps_per_epoch) / total_steps
            alpha = 2.0 / (1.0 + math.exp(-args.gamma * p)) - 1.0

            x = torch.cat([xs, xt])
            optimizer.zero_grad()
            class_logits, domain_logits = model(x, alpha)
            cls_loss = F.cross_entropy(class_logits[: xs.size(0)], ys)
            dom_loss = F.cross_entropy(domain_logits, domain_labels(xs.size(0), xt.size(0), x.device))
            loss = cls_loss + dom_loss
            accelerator.backward(loss)
            optimizer.step()

            if i % 100 == 0:
                logger.info("ep %d it %d cls %.4f dom %.4f alpha %.3f", epoch, i, cls_loss.item(), dom_loss.item(), alpha)

        acc = evaluate(model, tgt_test, accelerator)
        logger.info("epoch %d target acc %.4f", epoch, acc)
        if accelerator.is_main_process and acc > best:
            best = acc
            os.makedirs(args.output_dir, exist_ok=True)
            torch.save(accelerator.unwrap_model(model).state_dict(), os.path.join(args.output_dir, "best.pt"))
    logger.info("best target acc %.4f", best)


if __name__ == "__main__":
    main()
