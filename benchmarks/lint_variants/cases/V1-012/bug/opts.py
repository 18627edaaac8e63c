import argparse


def parse_opts():
    parser = argparse.ArgumentParser(description="CIFAR-100 training")
    parser.add_argument("--data_root", default="./data", type=str)
    parser.add_argument("--arch", default="resnet18", type=str)
    parser.add_argument("--n_classes", default=100, type=int)
    parser.add_argument("--batch_size", default=128, type=int)
    parser.add_argument("--n_epochs", default=200, type=int)
    parser.add_argument("--learning_rate", default=0.1, type=float)
    parser.add_argument("--momentum", default=0.9, type=float)
    parser.add_argument("--weight_decay", default=5e-4, type=float)
    parser.add_argument("--milestones", default=[60, 120, 160], type=int, nargs="+")
    parser.add_argument("--result_path", default="./results", type=str)
    parser.add_argument("--n_threads", default=4, type=int)
    return parser.parse_args()
