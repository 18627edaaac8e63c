import argparse
import logging

import torch

from hooks import IterationTimer, LRScheduler, PeriodicCheckpointer, PeriodicWriter
from train_loop import SimpleTrainer
from modeling import build_model, build_detection_train_loader


def build_lr_scheduler(cfg, optimizer):
    warmup = cfg.warmup_iters

    def lr_lambda(it):
        factor = min(1.0, (it + 1) / warmup)
        for step in cfg.steps:
            if it >= step:
                factor *= cfg.gamma
        return factor

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def main(cfg):
    model = build_model(cfg).to(cfg.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.base_lr, momentum=0.9,
                                weight_decay=cfg.weight_decay)
    scheduler = build_lr_scheduler(cfg, optimizer)
    data_loader = build_detection_train_loader(cfg)

    trainer = SimpleTrainer(model, data_loader, optimizer)
    trainer.register_hooks([
        IterationTimer(),
        LRScheduler(optimizer, scheduler),
        PeriodicCheckpointer(model, cfg.checkpoint_period, cfg.output_dir),
        PeriodicWriter(period=20),
    ])
    trainer.train(0, cfg.max_iter)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-lr", dest="base_lr", type=float, default=0.02)
    parser.add_argument("--weight-decay", dest="weight_decay", type=float, default=1e-4)
    parser.add_argument("--max-iter", dest="max_iter", type=int, default=90000)
    parser.add_argument("--warmup-iters", dest="warmup_iters", type=int, default=1000)
    parser.add_argument("--steps", type=int, nargs="+", default=[60000, 80000])
    parser.add_argument("--gamma", type=float, default=0.1)
    parser.add_argument("--checkpoint-period", dest="checkpoint_period", type=int, default=5000)
    parser.add_argument("--output-dir", dest="output_dir", default="./output")
    parser.add_argument("--device", default="cuda")
    main(parser.parse_args())
