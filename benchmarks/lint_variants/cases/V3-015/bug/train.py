import argparse

import torch
from torch.utils.data import DataLoader

from hooks import LoggerHook, ValLossHook
from runner import DepthNet, IterBasedRunner


def main():
    parser = argparse.ArgumentParser(description="Train a monocular depth model")
    parser.add_argument("--data-root", default="data/nyu_depth_v2")
    parser.add_argument("--work-dir", default="work_dirs/depthnet_nyu")
    parser.add_argument("--max-iters", type=int, default=40000)
    parser.add_argument("--val-interval", type=int, default=2000)
    args = parser.parse_args()

    from datasets import NYUDepthDataset
    train_loader = DataLoader(NYUDepthDataset(args.data_root, "train"), batch_size=8, shuffle=True,
                              num_workers=4, drop_last=True)
    val_loader = DataLoader(NYUDepthDataset(args.data_root, "test"), batch_size=8, num_workers=4)
    model = DepthNet().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-2)
    runner = IterBasedRunner(model, optimizer, train_loader, args.max_iters, args.work_dir,
                             hooks=[LoggerHook(50), ValLossHook(val_loader, args.val_interval)])
    runner.run()


if __name__ == "__main__":
    main()
