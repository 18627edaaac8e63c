import argparse

import torch

from criterions import CRITERION_REGISTRY
from models import LSTMLanguageModel
from tasks import LanguageModelingTask


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--criterion", default="cross_entropy")
    parser.add_argument("--embed-dim", type=int, default=512)
    parser.add_argument("--hidden-size", type=int, default=512)
    parser.add_argument("--num-layers", type=int, default=2)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max-epoch", type=int, default=20)
    parser.add_argument("--clip-norm", type=float, default=0.1)
    return parser


def main(args):
    task = LanguageModelingTask.setup_task(args)
    model = LSTMLanguageModel.build_model(args, task)
    criterion = CRITERION_REGISTRY[args.criterion].build_criterion(args, task)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(1, args.max_epoch + 1):
        model.train()
        logs = []
        for sample in task.get_batch_iterator("train"):
            optimizer.zero_grad()
            loss, sample_size, logging_output = criterion(model, sample)
            (loss / sample_size).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_norm)
            optimizer.step()
            logs.append(logging_output)
        print(f"epoch {epoch:03d} | train", criterion.reduce_metrics(logs))
        model.eval()
        with torch.no_grad():
            valid_logs = [criterion(model, s)[2] for s in task.get_batch_iterator("valid")]
        print(f"epoch {epoch:03d} | valid", criterion.reduce_metrics(valid_logs))


if __name__ == "__main__":
    main(get_parser().parse_args())
