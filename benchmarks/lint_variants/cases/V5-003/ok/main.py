import argparse

from torch.utils.data import DataLoader

from datasets import SpeechCommands
from model import KWSNet
from solver import Solver


def get_args():
    parser = argparse.ArgumentParser(description="Keyword spotting")
    parser.add_argument("--root", default="./speech_commands")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--lr_step", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--ckpt", default="kws_best.pt")
    return parser.parse_args()


if __name__ == "__main__":
    args = get_args()
    train_set = SpeechCommands(args.root, subset="training")
    valid_set = SpeechCommands(args.root, subset="validation")
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=4)
    valid_loader = DataLoader(valid_set, batch_size=args.batch_size, num_workers=4)
    solver = Solver(KWSNet(n_classes=train_set.num_classes), train_loader, valid_loader, args)
    print("best val acc", solver.fit())
