import argparse

import torch
from ignite.engine import Engine, Events
from ignite.handlers import ModelCheckpoint
from ignite.metrics import Accuracy, Loss, RunningAverage
from ignite.contrib.handlers import ProgressBar

from model import AudioCNN
from utils import mixup, soft_cross_entropy, nll_from_probs
from data import get_loaders


def main(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader, val_loader = get_loaders(args.root, args.fold, args.batch_size)
    model = AudioCNN(n_classes=args.n_classes).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-2)

    def train_step(engine, batch):
        model.train()
        x, y = batch[0].to(device), batch[1].to(device)
        x, y_soft = mixup(x, y, args.n_classes, alpha=args.mixup_alpha)
        optimizer.zero_grad()
        probs = model(x)
        loss = soft_cross_entropy(probs, y_soft)
        loss.backward()
        optimizer.step()
        return loss.item()

    def eval_step(engine, batch):
        model.eval()
        with torch.no_grad():
            x, y = batch[0].to(device), batch[1].to(device)
            return model(x), y

    trainer = Engine(train_step)
    evaluator = Engine(eval_step)
    RunningAverage(output_transform=lambda out: out).attach(trainer, "loss")
    Accuracy().attach(evaluator, "acc")
    Loss(nll_from_probs).attach(evaluator, "nll")
    ProgressBar().attach(trainer, ["loss"])

    @trainer.on(Events.EPOCH_COMPLETED)
    def run_validation(engine):
        evaluator.run(val_loader)
        m = evaluator.state.metrics
        print(f"epoch {engine.state.epoch}: val acc {m['acc']:.4f} nll {m['nll']:.4f}")

    ckpt = ModelCheckpoint(args.out_dir, "audiocnn", n_saved=2, require_empty=False,
                           score_function=lambda e: e.state.metrics["acc"], score_name="acc")
    evaluator.add_event_handler(Events.COMPLETED, ckpt, {"model": model})
    trainer.run(train_loader, max_epochs=args.epochs)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--root", default="ESC-50")
    p.add_argument("--fold", type=int, default=1)
    p.add_argument("--n_classes", type=int, default=50)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--mixup_alpha", type=float, default=0.4)
    p.add_argument("--epochs", type=int, default=120)
    p.add_argument("--out_dir", default="runs")
    main(p.parse_args())
