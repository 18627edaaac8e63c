import argparse
import logging
import math
import os

import numpy as np
import torch
import torch.nn.functional as F
from torch import optim

from data import accuracy, get_loaders
from models import DomainClassifier, FeatureExtractor, LabelClassifier

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("dann")

parser = argparse.ArgumentParser(description="DANN: MNIST -> MNIST-M")
parser.add_argument("--root", default="./data")
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--gamma", type=float, default=10.0)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--out", default="checkpoints")
args = parser.parse_args()

torch.manual_seed(args.seed)
np.random.seed(args.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
source_loader, target_loader, target_test_loader = get_loaders(args.root, args.batch_size)

feature_extractor = FeatureExtractor().to(device)
label_classifier = LabelClassifier().to(device)
domain_classifier = DomainClassifier().to(device)

optimizer = optim.Adam(
    list(feature_extractor.parameters())
    + list(label_classifier.parameters()),
    lr=args.lr,
)

os.makedirs(args.out, exist_ok=True)
n_batches = min(len(source_loader), len(target_loader))
total_steps = args.epochs * n_batches
best_acc = 0.0
for epoch in range(1, args.epochs + 1):
    feature_extractor.train()
    label_classifier.train()
    domain_classifier.train()
    stats = {"cls": 0.0, "dom": 0.0, "dom_acc": 0.0}
    for i, ((xs, ys), (xt, _)) in enumerate(zip(source_loader, target_loader)):
        p = ((epoch - 1) * n_batches + i) / total_steps
        lambda_ = 2.0 / (1.0 + math.exp(-args.gamma * p)) - 1
        for g in optimizer.param_groups:
            g["lr"] = args.lr / (1.0 + 10 * p) ** 0.75
        domain_classifier.set_lambda(lambda_)

        xs, ys, xt = xs.to(device), ys.to(device), xt.to(device)
        x = torch.cat([xs, xt])
        domain_y = torch.cat([torch.ones(xs.size(0)), torch.zeros(xt.size(0))]).to(device)
        feats = feature_extractor(x)
        domain_logits = domain_classifier(feats)
        label_logits = label_classifier(feats[: xs.size(0)])

        domain_loss = F.binary_cross_entropy_with_logits(domain_logits, domain_y)
        label_loss = F.cross_entropy(label_logits, ys)
        loss = label_loss + domain_loss

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        stats["cls"] += label_loss.item()
        stats["dom"] += domain_loss.item()
        stats["dom_acc"] += ((domain_logits > 0).float() == domain_y).float().mean().item()

    tgt_acc = accuracy(feature_extractor, label_classifier, target_test_loader, device)
    log.info("epoch %03d lambda %.3f cls %.4f dom %.4f dom_acc %.3f | MNIST-M test acc %.4f", epoch, lambda_,
             stats["cls"] / n_batches, stats["dom"] / n_batches, stats["dom_acc"] / n_batches, tgt_acc)
    if tgt_acc > best_acc:
        best_acc = tgt_acc
        torch.save({"feature_extractor": feature_extractor.state_dict(),
                    "label_classifier": label_classifier.state_dict(),
                    "domain_classifier": domain_classifier.state_dict(), "epoch": epoch},
                   os.path.join(args.out, "dann_best.pt"))
log.info("best target accuracy %.4f", best_acc)
