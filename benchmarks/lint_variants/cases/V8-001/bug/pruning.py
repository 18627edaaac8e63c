import logging

import torch
import torch.nn as nn
import torch.nn.utils.prune as prune

logger = logging.getLogger(__name__)


def prunable_modules(model):
    return [(m, "weight") for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]


def global_magnitude_prune(model, amount):
    params = prunable_modules(model)
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=amount)
    return params


def make_permanent(model):
    for module, name in prunable_modules(model):
        if prune.is_pruned(module):
            prune.remove(module, name)


def sparsity(model):
    zeros, total = 0, 0
    for module, name in prunable_modules(model):
        w = getattr(module, name)
        zeros += int((w == 0).sum())
        total += w.numel()
    return zeros / max(total, 1)


def schedule(final_sparsity, rounds):
    keep = 1.0 - final_sparsity
    per_round = 1.0 - keep ** (1.0 / rounds)
    return [per_round] * rounds


def finetune(model, loader, optimizer, criterion, device, epochs=1, log_every=100):
    model.train()
    for epoch in range(epochs):
        running = 0.0
        for step, (images, targets) in enumerate(loader):
            images, targets = images.to(device), targets.to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(images), targets)
            loss.backward()
            optimizer.step()
            running += loss.item()
            if (step + 1) % log_every == 0:
                logger.info("finetune epoch %d step %d loss %.4f", epoch, step + 1, running / log_every)
                running = 0.0


@torch.no_grad()
def evaluate(model, loader, device):
    correct, seen = 0, 0
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        logits = model(images)
        correct += (logits.argmax(1) == targets).sum().item()
        seen += targets.numel()
    return 100.0 * correct / max(seen, 1)
