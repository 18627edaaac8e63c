"""Acceptance test for t02: python accept.py PROJECT_DIR

The project's evaluate() must report the token accuracy over real (non-padded)
tokens only:
  1. with constant-prediction models (always tag k) on the validation loader it
     must return the share of real tokens whose tag is k, for every k;
  2. after a short training run, the accuracy it reports must equal the accuracy
     computed here independently, and be >= 0.95.
"""
import os
import sys

import torch
from torch import nn

torch.set_num_threads(1)

CFG = {
    "seed": 7,
    "data": {"vocab_size": 40, "num_tags": 5, "num_negators": 3, "min_len": 5, "max_len": 40,
             "train_size": 2000, "val_size": 500, "pad_id": 0},
    "model": {"embed_dim": 32, "channels": 64, "kernel_size": 3, "dropout": 0.1},
    "train": {"epochs": 3, "batch_size": 64, "lr": 0.003, "weight_decay": 0.0,
              "log_every": 10 ** 9},
}
LABEL_PAD = -100  # the value data.py pads targets with


class ConstantTagger(nn.Module):
    def __init__(self, tag, num_tags):
        super().__init__()
        self.tag, self.num_tags = tag, num_tags
        self.dummy = nn.Parameter(torch.zeros(()))

    def forward(self, tokens):
        out = torch.zeros(*tokens.shape, self.num_tags)
        out[..., self.tag] = 1.0
        return out + 0 * self.dummy


def true_accuracy(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for tokens, targets in loader:
            pred = model(tokens).argmax(-1)
            real = targets != LABEL_PAD
            correct += ((pred == targets) & real).sum().item()
            total += real.sum().item()
    return correct / total


def main():
    proj = os.path.abspath(sys.argv[1])
    sys.path.insert(0, proj)
    os.chdir(proj)
    from data import build_loaders
    from evaluate import evaluate
    from train import train

    _, val_loader = build_loaders(CFG)
    tags = torch.cat([t[t != LABEL_PAD] for _, t in val_loader])
    ok = True
    for k in range(CFG["data"]["num_tags"]):
        want = (tags == k).float().mean().item()
        got = evaluate(ConstantTagger(k, CFG["data"]["num_tags"]), val_loader, CFG)["accuracy"]
        flag = abs(got - want) < 1e-6
        ok &= flag
        print(f"always-tag-{k} model: evaluate() accuracy {got:.4f}, share of real tokens {want:.4f}"
              f" {'ok' if flag else 'MISMATCH'}")
    if not ok:
        print("FAIL: evaluate() does not score exactly the real (non-padded) tokens")
        return 1

    torch.manual_seed(0)
    model, history = train(CFG, verbose=False)
    reported = history[-1]["val_acc"]
    actual = true_accuracy(model, val_loader)
    print(f"trained model: reported val accuracy {reported:.4f}, independent {actual:.4f}")
    if abs(reported - actual) > 1e-6:
        print("FAIL: reported accuracy differs from the accuracy over real tokens")
        return 1
    if actual < 0.95:
        print("FAIL: the tagger itself does not reach 0.95 token accuracy")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
