import argparse
import os

from torch.utils.data import DataLoader

from data_loader import ImageFolderSeg
from solver import Solver


def main(config):
    os.makedirs(config.model_path, exist_ok=True)
    train_loader = DataLoader(ImageFolderSeg(config.train_path, config.image_size, mode="train"),
                              batch_size=config.batch_size, shuffle=True, num_workers=config.num_workers)
    valid_loader = DataLoader(ImageFolderSeg(config.valid_path, config.image_size, mode="valid"),
                              batch_size=config.batch_size, shuffle=False, num_workers=config.num_workers)
    solver = Solver(config, train_loader, valid_loader)
    solver.train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--image_size", type=int, default=224)
    parser.add_argument("--img_ch", type=int, default=3)
    parser.add_argument("--output_ch", type=int, default=1)
    parser.add_argument("--num_epochs", type=int, default=100)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--num_workers", type=int, default=4)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--beta1", type=float, default=0.5)
    parser.add_argument("--beta2", type=float, default=0.999)
    parser.add_argument("--model_path", type=str, default="./models")
    parser.add_argument("--train_path", type=str, default="./dataset/train/")
    parser.add_argument("--valid_path", type=str, default="./dataset/valid/")
    main(parser.parse_args())
