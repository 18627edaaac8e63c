"""Token-level metrics for the tagger."""
import torch


def token_counts(logits, targets, ignore_index):
    """Number of correctly tagged tokens and number of scored tokens in a batch.

    logits: (B, T, C); targets: (B, T).  Positions whose target equals
    `ignore_index` are not scored.
    """
    pred = logits.argmax(dim=-1)
    keep = targets != ignore_index
    correct = ((pred == targets) & keep).sum().item()
    return correct, keep.sum().item()


def per_tag_recall(logits, targets, num_tags, ignore_index):
    pred = logits.argmax(dim=-1)
    out = {}
    for k in range(num_tags):
        sel = (targets == k) & (targets != ignore_index)
        n = sel.sum().item()
        out[k] = (pred[sel] == k).float().mean().item() if n else float("nan")
    return out
