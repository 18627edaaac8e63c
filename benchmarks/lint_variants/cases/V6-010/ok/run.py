import argparse

import torch

from data_utils import build_dataset, build_iterator
from models import TextCNN
from runner import Runner


class Config:
    def __init__(self, dataset):
        self.train_path = dataset + "/data/train.txt"
        self.dev_path = dataset + "/data/dev.txt"
        self.vocab_path = dataset + "/data/vocab.pkl"
        self.save_path = dataset + "/saved_dict/TextCNN.ckpt"
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.num_classes = 10
        self.num_epochs = 20
        self.batch_size = 128
        self.pad_size = 32
        self.learning_rate = 1e-3
        self.embed = 300


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Chinese Text Classification")
    parser.add_argument("--dataset", default="THUCNews")
    args = parser.parse_args()
    config = Config(args.dataset)
    torch.manual_seed(1)
    vocab, train_data, dev_data = build_dataset(config)
    train_iter = build_iterator(train_data, config, shuffle=True)
    dev_iter = build_iterator(dev_data, config)
    model = TextCNN(len(vocab), config.embed, config.num_classes).to(config.device)
    Runner(model, config, train_iter, dev_iter).fit()
