"""Acceptance test for t07: the training objective must be the cross-entropy of the model's
predicted distribution, and training must get well below the plateau.

Usage: python accept.py PROJECT_DIR   (exit 0 = fixed, 1 = not fixed)
Through the project's own pieces (config.Config, train.train, losses.build_criterion):
  1. train with the default Config (seeded, one thread);
  2. on training batches, the value of the project's criterion must equal the cross-entropy of
     the distribution the model predicts (outputs read as probabilities if every row is
     non-negative and sums to 1, as logits otherwise), within 2 %: an objective computed on an
     already-normalised output (softmax fed to CrossEntropyLoss, NLLLoss on probabilities) fails;
  3. the final epoch's training loss is below 1.0 (the plateau sits near 2.1; ln 20 = 3.0);
  4. the final validation accuracy is at least 0.90.
"""
import importlib
import os
import sys

import torch
import torch.nn.functional as F


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def predicted_log_probs(out: torch.Tensor) -> torch.Tensor:
    rows_are_probs = bool((out >= 0).all()) and torch.allclose(out.sum(-1), torch.ones(out.shape[0]), atol=1e-4)
    return out.clamp_min(1e-12).log() if rows_are_probs else F.log_softmax(out, dim=-1)


def main():
    torch.set_num_threads(1)
    project = os.path.abspath(sys.argv[1])
    os.chdir(project)
    sys.path.insert(0, project)
    config = importlib.import_module("config")
    train_mod = importlib.import_module("train")
    losses = importlib.import_module("losses")
    data = importlib.import_module("data")

    cfg = config.Config()
    torch.manual_seed(0)
    model, history = train_mod.train(cfg, verbose=False)
    last = history[-1]
    print(f"final epoch: train loss {last['train_loss']:.4f}  val acc {last['val_acc']:.3f}")

    criterion = losses.build_criterion(cfg)
    train_loader, _ = data.build_loaders(cfg)
    model.eval()
    with torch.no_grad():
        for i, (x, y) in enumerate(train_loader):
            out = model(x)
            project_loss = criterion(out, y).item()
            eps = getattr(criterion, "label_smoothing", 0.0) or 0.0
            logp = predicted_log_probs(out)
            true_ce = ((1 - eps) * F.nll_loss(logp, y) - eps * logp.mean(-1).mean()).item()
            if abs(project_loss - true_ce) > 0.02 * max(1.0, abs(true_ce)):
                fail(f"the training objective ({project_loss:.4f}) is not the cross-entropy of the model's "
                     f"predicted distribution ({true_ce:.4f}) on a training batch")
            if i == 3:
                break

    if not last["train_loss"] < 1.0:
        fail(f"final training loss {last['train_loss']:.4f} is not below 1.0 (still on the plateau)")
    if not last["val_acc"] >= 0.90:
        fail(f"final validation accuracy {last['val_acc']:.3f} < 0.90")
    print("PASS: the objective is the cross-entropy of the predicted distribution and training leaves the plateau")
    sys.exit(0)


if __name__ == "__main__":
    main()
