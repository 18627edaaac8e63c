"""Validation loop for the tagger."""
import torch
import torch.nn.functional as F

from data import LABEL_PAD
from metrics import token_counts


@torch.no_grad()
def evaluate(model, loader, cfg):
    was_training = model.training
    model.eval()
    loss_sum, loss_tokens = 0.0, 0
    correct, scored = 0, 0
    for tokens, targets in loader:
        logits = model(tokens)
        loss_sum += F.cross_entropy(logits.flatten(0, 1), targets.flatten(),
                                    ignore_index=LABEL_PAD, reduction="sum").item()
        loss_tokens += (targets != LABEL_PAD).sum().item()
        c, n = token_counts(logits, targets, ignore_index=LABEL_PAD)
        correct += c
        scored += n
    model.train(was_training)
    return {"loss": loss_sum / max(loss_tokens, 1), "accuracy": correct / max(scored, 1)}
