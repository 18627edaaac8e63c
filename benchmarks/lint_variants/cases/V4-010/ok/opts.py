import argparse


def parse_opts():
    parser = argparse.ArgumentParser(description="Super-resolution training")
    parser.add_argument("--train_dir", type=str, default="data/DIV2K_train_HR")
    parser.add_argument("--val_dir", type=str, default="data/DIV2K_valid_HR")
    parser.add_argument("--scale", type=int, default=4)
    parser.add_argument("--patch_size", type=int, default=96)
    parser.add_argument("--n_resblocks", type=int, default=16)
    parser.add_argument("--n_feats", type=int, default=64)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--lr_decay", type=int, default=200)
    parser.add_argument("--gamma", type=float, default=0.5)
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--save_dir", type=str, default="experiment")
    parser.add_argument("--cpu", action="store_true")
    return parser.parse_args()
